import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on a loopback port for the HTTP transport's tests: it answers each
/// request with what `answer` returns for its head (request line and headers), closes the
/// connection, and keeps every head it saw.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Answer {
        var status: Int
        var headers: [String: String] = [:]
        var body = Data()
    }

    private(set) var port = 0
    private let socketDescriptor: Int32
    private let lock = NSLock()
    private var heads: [String] = []
    private let answer: @Sendable (String) -> Answer

    /// Every request head received so far.
    var requests: [String] { lock.withLock { heads } }

    init(answer: @escaping @Sendable (String) -> Answer) throws {
        self.answer = answer
        #if canImport(Glibc)
        socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socketDescriptor, 16) == 0 else {
            close(socketDescriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(socketDescriptor, Int32(SHUT_RDWR))
        close(socketDescriptor)
    }

    private func serve() {
        while true {
            let connection = accept(socketDescriptor, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator = Data("\r\n\r\n".utf8)
        // The head, then as much body as it announces.
        while received.range(of: separator) == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let end = received.range(of: separator) else { return }
        let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while received.count - end.upperBound < length {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
        }
        lock.withLock { heads.append(head) }
        let reply = answer(head)
        var text = "HTTP/1.1 \(reply.status) Status\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n"
        for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
        let bytes = Data((text + "\r\n").utf8) + reply.body
        bytes.withUnsafeBytes { pointer in
            var offset = 0
            while offset < bytes.count {
                let written = write(connection, pointer.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
