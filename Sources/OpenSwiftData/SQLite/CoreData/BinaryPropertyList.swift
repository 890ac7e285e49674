import Foundation

/// A binary property list (`bplist00`) read into values, keeping what Foundation's reader hides
/// off Apple platforms: the object references (`UID`s) of a keyed archive, which Core Data's
/// model cache is. The bytes come from files other programs wrote, so every offset, count and
/// reference is checked; anything out of bounds or circular is refused, never trapped on.
enum BinaryPropertyList {
    indirect enum Value: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Date)
        case data(Data)
        case string(String)
        case uid(Int)
        case array([Value])
        case dictionary([String: Value])

        var string: String? { if case .string(let value) = self { return value }; return nil }
        var integer: Int64? { if case .integer(let value) = self { return value }; return nil }
        var uid: Int? { if case .uid(let value) = self { return value }; return nil }
        var array: [Value]? { if case .array(let value) = self { return value }; return nil }
        var dictionary: [String: Value]? { if case .dictionary(let value) = self { return value }; return nil }
        var bool: Bool? {
            switch self {
            case .bool(let value): return value
            case .integer(let value): return value != 0
            default: return nil
            }
        }
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the whole list; throws ``Unreadable`` for anything that is not a well-formed binary
    /// property list (or nests deeper than 64 containers, or expands past a million objects).
    ///
    /// Each object is read once, however many references name it: a value referenced again is
    /// the same value (its bytes shared, not copied). What the references expand to is counted
    /// all the same, and a list whose bytes, as its references spell them out, come to more
    /// than ``expansionLimit`` times its own size is refused as unreadable — a small file that
    /// names one large value a million times would otherwise make every reader of it walk
    /// gigabytes.
    static func read(_ data: Data) throws -> Value {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { throw Unreadable(description: "not a binary property list") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let reader = Reader(bytes: bytes, referenceSize: referenceSize, budget: bytes.count.multipliedReportingOverflow(by: expansionLimit).partialValue)
        let count = try reader.unsigned(at: trailer + 8, size: 8)
        let top = try reader.unsigned(at: trailer + 16, size: 8)
        let table = try reader.unsigned(at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, count <= bytes.count, top < count,
              table < trailer, (trailer - table) / offsetSize >= count else {
            throw Unreadable(description: "the property list's trailer is damaged")
        }
        reader.offsets = try (0..<count).map { try reader.unsigned(at: table + $0 * offsetSize, size: offsetSize) }
        return try reader.object(top, depth: 0)
    }

    /// How many times its own size a list's contents may come to, spelled out reference by
    /// reference (Core Data's model archives, which share their keys' strings, come to about
    /// twice theirs).
    static let expansionLimit = 16

    private final class Reader {
        let bytes: [UInt8]
        let referenceSize: Int
        var offsets: [Int] = []
        /// References followed so far: shared references could otherwise make a small file expand without end.
        private var visits = 0
        /// Each object read, by reference, with the bytes it spells out: read once, shared after.
        private var read: [Int: (value: Value, bytes: Int)] = [:]
        /// The bytes the references may still spell out.
        private var budget: Int

        init(bytes: [UInt8], referenceSize: Int, budget: Int) {
            self.bytes = bytes
            self.referenceSize = referenceSize
            self.budget = budget
        }

        /// The object `reference` names, read the first time and shared after; its bytes count
        /// against the budget every time.
        func object(_ reference: Int, depth: Int) throws -> Value {
            guard depth < 64 else { throw Unreadable(description: "the property list nests too deeply") }
            visits += 1
            guard visits <= 1_000_000 else { throw Unreadable(description: "the property list expands to too many objects") }
            let (value, size): (Value, Int)
            if let known = read[reference] {
                (value, size) = known
            } else {
                let before = budget
                value = try decode(reference, depth: depth)
                // The bytes of its contents were counted as they were read; its own, here.
                size = before - budget + Self.ownBytes(value)
                budget += before - budget
                read[reference] = (value, size)
            }
            budget -= size
            guard budget >= 0 else { throw Unreadable(description: "the property list spells out far more than its own size (a value referenced over and over)") }
            return value
        }

        /// The bytes a value holds itself (a string's, data's; a small fixed size otherwise).
        private static func ownBytes(_ value: Value) -> Int {
            switch value {
            case .data(let data): return data.count + 8
            case .string(let string): return string.utf8.count + 8
            default: return 8
            }
        }

        func unsigned(at position: Int, size: Int) throws -> Int {
            guard position >= 0, size <= 8, position <= bytes.count - size else { throw Unreadable(description: "an offset points outside the property list") }
            var value: UInt64 = 0
            for index in position..<(position + size) { value = value << 8 | UInt64(bytes[index]) }
            guard let result = Int(exactly: value), result >= 0 else { throw Unreadable(description: "a number in the property list is out of range") }
            return result
        }

        /// The length that follows a marker whose low nibble is 0xF, and where the contents start.
        func length(marker: UInt8, at position: Int) throws -> (Int, Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, position + 1) }
            guard position + 1 < bytes.count, bytes[position + 1] >> 4 == 0x1 else { throw Unreadable(description: "a length in the property list is damaged") }
            let size = 1 << Int(bytes[position + 1] & 0x0F)
            return (try unsigned(at: position + 2, size: size), position + 2 + size)
        }

        private func decode(_ reference: Int, depth: Int) throws -> Value {
            guard reference >= 0, reference < offsets.count, offsets[reference] < bytes.count else { throw Unreadable(description: "a reference in the property list points nowhere") }
            let position = offsets[reference]
            let marker = bytes[position]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: return .null
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8 else { throw Unreadable(description: "an integer in the property list is too wide") }
                let raw = try rawBits(at: position + 1, size: size)
                return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                let raw = try rawBits(at: position + 1, size: size)
                if size == 4 { return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))) }
                guard size == 8 else { throw Unreadable(description: "a real in the property list has \(size) bytes") }
                return .real(Double(bitPattern: raw))
            case 0x3:
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try rawBits(at: position + 1, size: 8))))
            case 0x4:
                let (count, start) = try length(marker: marker, at: position)
                return .data(Data(try slice(start, count)))
            case 0x5:
                let (count, start) = try length(marker: marker, at: position)
                return .string(String(decoding: try slice(start, count), as: UTF8.self))
            case 0x6:
                let (count, start) = try length(marker: marker, at: position)
                let (total, overflow) = count.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw Unreadable(description: "a string in the property list is too long") }
                let raw = try slice(start, total)
                let units = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[raw.startIndex + $0]) << 8 | UInt16(raw[raw.startIndex + $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                return .uid(try unsigned(at: position + 1, size: Int(marker & 0x0F) + 1))
            case 0xA, 0xC:
                let (count, start) = try length(marker: marker, at: position)
                return .array(try references(start, count).map { try object($0, depth: depth + 1) })
            case 0xD:
                let (count, start) = try length(marker: marker, at: position)
                let (keyBytes, overflow) = count.multipliedReportingOverflow(by: referenceSize)
                guard !overflow else { throw Unreadable(description: "a dictionary in the property list is too large") }
                let keys = try references(start, count)
                let values = try references(start + keyBytes, count)
                var result: [String: Value] = [:]
                for (key, value) in zip(keys, values) {
                    guard case .string(let name) = try object(key, depth: depth + 1) else { throw Unreadable(description: "a dictionary key in the property list is not a string") }
                    result[name] = try object(value, depth: depth + 1)
                }
                return .dictionary(result)
            default:
                throw Unreadable(description: "the property list has an object of unknown kind (\(marker >> 4))")
            }
        }

        private func rawBits(at position: Int, size: Int) throws -> UInt64 {
            guard position >= 0, size <= 8, position <= bytes.count - size else { throw Unreadable(description: "a value runs past the end of the property list") }
            var value: UInt64 = 0
            for index in position..<(position + size) { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        private func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
            guard start >= 0, count >= 0, start <= bytes.count, count <= bytes.count - start else { throw Unreadable(description: "a value runs past the end of the property list") }
            return bytes[start..<(start + count)]
        }

        private func references(_ start: Int, _ count: Int) throws -> [Int] {
            let (total, overflow) = count.multipliedReportingOverflow(by: referenceSize)
            guard !overflow else { throw Unreadable(description: "a container in the property list is too large") }
            _ = try slice(start, total)
            return try (0..<count).map { try unsigned(at: start + $0 * referenceSize, size: referenceSize) }
        }
    }
}
