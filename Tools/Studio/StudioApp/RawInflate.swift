#if Studio
import CompressNIO
import Foundation
import NIOCore

/// Raw deflate undone, for the model a Core Data file keeps compressed in `Z_MODELCACHE`
/// (``StoreBrowser/open(file:allowsEdits:inflate:)``). At most 64 MiB comes out: a model is a
/// few kilobytes, and a crafted file must not fill memory.
package enum RawInflate {
    package static let limit = 64 << 20

    package static func inflate(_ data: Data) throws -> Data {
        var input = ByteBuffer(bytes: data)
        let output = try input.decompress(with: .deflate(), maxSize: limit)
        return Data(output.readableBytesView)
    }
}
#endif
