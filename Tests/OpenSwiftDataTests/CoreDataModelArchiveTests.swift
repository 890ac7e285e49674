import Foundation
import Testing
@testable import OpenSwiftData

/// Core Data's model archive, as Apple-written files keep it: a binary property list read from
/// a file another program wrote. However its objects refer to one another, reading it costs
/// about its own size; one that spells out far more than that is refused as unreadable.
@Suite struct CoreDataModelArchiveTests {
    /// A `bplist00` of `objects` (each already encoded), the last of them the top, with 4-byte
    /// offsets and 2-byte references.
    static func propertyList(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2]
        bytes += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(objects.count - 1).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(table).bigEndian, Array.init)
        return Data(bytes)
    }

    /// Data of `count` bytes (0x4F, a 4-byte length).
    static func data(_ count: Int) -> [UInt8] {
        [0x4F, 0x12] + withUnsafeBytes(of: UInt32(count).bigEndian, Array.init) + [UInt8](repeating: 0x61, count: count)
    }

    /// An array of `count` references to object `reference` (0xAF, a 2-byte count).
    static func array(of reference: Int, count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xAF, 0x11] + withUnsafeBytes(of: UInt16(count).bigEndian, Array.init)
        for _ in 0..<count { bytes += withUnsafeBytes(of: UInt16(reference).bigEndian, Array.init) }
        return bytes
    }

    @Test func aListThatNamesOneValueOverAndOverIsRefusedAtOnce() throws {
        // 16 KB of data named a thousand times, that array named a thousand times: 16 GB spelled
        // out by a file of 20 KB.
        let list = Self.propertyList([Self.data(16 << 10), Self.array(of: 0, count: 1000), Self.array(of: 1, count: 1000)])
        #expect(list.count < 21 << 10)
        // Before it was refused, reading it copied the 16 KB for every reference: gigabytes.
        #expect { try BinaryPropertyList.read(list) } throws: { error in
            "\(error)".contains("spells out far more than its own size")
        }
    }

    @Test func aValueNamedAFewTimesIsReadOnceAndShared() throws {
        let list = Self.propertyList([Self.data(100), Self.array(of: 0, count: 10)])
        let read = try BinaryPropertyList.read(list)
        #expect(read.array?.count == 10)
        #expect(read.array?.allSatisfy { $0 == .data(Data(repeating: 0x61, count: 100)) } == true)
    }
}
