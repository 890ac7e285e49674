import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request written by hand to a loopback port, for what an HTTP client library
/// would not send: a `Host` that is not the address connected to (as a rebound DNS name makes a
/// browser send). Returns the status code.
enum RawHTTP {
    static func status(port: Int, _ request: String) throws -> Int {
        #if canImport(Glibc)
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        guard write(socketDescriptor, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var received = [UInt8]()
        while !received.contains(UInt8(ascii: "\n")) {
            let count = read(socketDescriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        // "HTTP/1.1 421 Misdirected Request"
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        guard let code = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw POSIXError(.EPROTO) }
        return code
    }
}
