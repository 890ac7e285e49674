#if Studio
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 written by hand to a loopback port, for what an HTTP client library would not do:
/// send a `Host` that is not the address connected to (as a rebound DNS name makes a browser
/// send), keep a connection idle, or hold a stream open.
enum RawHTTP {
    /// Runs blocking socket work on a thread of its own: on one of Swift's few cooperative
    /// threads it could starve the server under test, whose handlers run there too.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Sends `request` and returns the response's status code, closing the connection.
    static func status(port: Int, _ request: String) throws -> Int {
        let (socketDescriptor, status) = try open(port: port, request)
        close(socketDescriptor)
        return status
    }

    /// A connection to a loopback port (and nothing sent).
    static func connect(port: Int) throws -> Int32 {
        #if canImport(Glibc)
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socketDescriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        // No read waits for ever: a server that never answers fails the test instead.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socketDescriptor
    }

    /// Sends `request` and reads up to the end of the status line; the connection stays open
    /// (close it).
    static func open(port: Int, _ request: String) throws -> (Int32, Int) {
        let socketDescriptor = try connect(port: port)
        let bytes = Array(request.utf8)
        guard write(socketDescriptor, bytes, bytes.count) == bytes.count else {
            close(socketDescriptor)
            throw POSIXError(.EIO)
        }
        var buffer = [UInt8](repeating: 0, count: 1)
        var received = [UInt8]()
        while received.last != UInt8(ascii: "\n") {
            guard read(socketDescriptor, &buffer, 1) == 1 else { break }
            received += buffer
        }
        // "HTTP/1.1 421 Misdirected Request"
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        guard let code = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            close(socketDescriptor)
            throw POSIXError(.EPROTO)
        }
        return (socketDescriptor, code)
    }

    /// Whether the server closes the connection (reads see its end) within the read timeout,
    /// whatever it sends first.
    static func closesByServer(_ socketDescriptor: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = read(socketDescriptor, &buffer, buffer.count)
            if count == 0 { return true }
            if count < 0 { return false }
        }
    }
}
#endif
