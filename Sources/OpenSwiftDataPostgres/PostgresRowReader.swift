#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// The rows of one result, read by column position: one reader for the whole result, loaded
/// with each row's cell bytes in turn (no allocation per row), the columns' types and formats
/// read once. Binary cells (what postgres-nio asks for) are read straight from their bytes;
/// anything else goes through postgres-nio's decoding.
final class PostgresRowReader: StoredRow {
    // `let`s and a buffer allocated once: class `var`s would cost an exclusivity check per read.
    private let bytes: UnsafeMutablePointer<ByteBuffer?>
    private let count: Int
    private let types: [PostgresDataType]
    private let binary: [Bool]
    private let cells: [PostgresCell]

    /// A reader for the rows of the result `first` belongs to.
    init(describing first: PostgresRow) {
        cells = Array(first)
        count = cells.count
        types = cells.map(\.dataType)
        binary = cells.map { $0.format == .binary }
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(repeating: nil, count: count)
    }

    deinit {
        bytes.deinitialize(count: count)
        bytes.deallocate()
    }

    /// Makes `row` (of the same result) the current row.
    func load(_ row: PostgresRow) {
        var index = 0
        for cell in row where index < count {
            bytes[index] = cell.bytes
            index += 1
        }
    }

    func value(at column: Int32) -> StoredValue {
        let index = Int(column)
        if let buffer = bytes[index] {
            switch types[index] {
            case .uuid: return uuid(buffer, binary: binary[index])
            case .timestamptz: return timestamp(buffer, binary: binary[index])
            case .numeric: return numeric(buffer, binary: binary[index])
            default: break
            }
        }
        switch storageClass(at: column) {
        case .null: return .null
        case .integer: return .integer(int64(at: column))
        case .real: return .real(double(at: column))
        case .blob: return bytes[Int(column)].map { .blob(Data(buffer: $0)) } ?? .null
        case .text: return .text(text(at: column))
        }
    }

    func isNull(at column: Int32) -> Bool { bytes[Int(column)] == nil }

    func storageClass(at column: Int32) -> StoredStorageClass {
        let index = Int(column)
        guard bytes[index] != nil else { return .null }
        switch types[index] {
        case .int8, .int4, .int2, .bool: return .integer
        case .float8, .float4: return .real
        case .bytea: return .blob
        default: return .text
        }
    }

    func int64(at column: Int32) -> Int64 {
        let index = Int(column)
        guard let buffer = bytes[index] else { return 0 }
        if binary[index] {
            switch types[index] {
            case .int8: return buffer.getInteger(at: buffer.readerIndex, as: Int64.self) ?? 0
            case .int4: return buffer.getInteger(at: buffer.readerIndex, as: Int32.self).map(Int64.init) ?? 0
            case .int2: return buffer.getInteger(at: buffer.readerIndex, as: Int16.self).map(Int64.init) ?? 0
            case .bool: return buffer.getInteger(at: buffer.readerIndex, as: UInt8.self).map { $0 == 0 ? 0 : 1 } ?? 0
            default: break
            }
        }
        let cell = cell(index, buffer)
        if types[index] == .bool { return (try? cell.decode(Bool.self)).map { $0 ? 1 : 0 } ?? 0 }
        return (try? cell.decode(Int64.self)) ?? 0
    }

    func double(at column: Int32) -> Double {
        let index = Int(column)
        guard let buffer = bytes[index] else { return 0 }
        if binary[index] {
            switch types[index] {
            case .float8: return buffer.getInteger(at: buffer.readerIndex, as: UInt64.self).map { Double(bitPattern: $0) } ?? 0
            case .float4: return buffer.getInteger(at: buffer.readerIndex, as: UInt32.self).map { Double(Float(bitPattern: $0)) } ?? 0
            default: break
            }
        }
        return (try? cell(index, buffer).decode(Double.self)) ?? 0
    }

    func text(at column: Int32) -> String {
        let index = Int(column)
        guard let buffer = bytes[index] else { return "" }
        switch types[index] {
        case .text, .varchar, .name:
            // Text is sent as its UTF-8 bytes in both formats.
            return buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        default:
            return (try? cell(index, buffer).decode(String.self)) ?? ""
        }
    }

    /// A `timestamptz` cell: microseconds since 2000-01-01 UTC (its infinities as infinite dates).
    private func timestamp(_ buffer: ByteBuffer, binary: Bool) -> StoredValue {
        guard binary, buffer.readableBytes == 8, let microseconds = buffer.getInteger(at: buffer.readerIndex, as: Int64.self) else {
            return .text(buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? "")
        }
        switch microseconds {
        case .max: return .date(Date(timeIntervalSinceReferenceDate: .infinity))
        case .min: return .date(Date(timeIntervalSinceReferenceDate: -.infinity))
        // One rounding: from whole microseconds since 2001 (exact) to seconds.
        default: return .date(Date(timeIntervalSinceReferenceDate: Double(microseconds &- 31_622_400_000_000) / 1_000_000))
        }
    }

    /// A `uuid` cell: its 16 bytes (binary) or its text.
    private func uuid(_ buffer: ByteBuffer, binary: Bool) -> StoredValue {
        if binary {
            guard let bytes = buffer.getBytes(at: buffer.readerIndex, length: 16), buffer.readableBytes == 16 else { return .blob(Data(buffer: buffer)) }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        }
        let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        return UUID(uuidString: text).map { .uuid($0) } ?? .text(text)
    }

    /// A `numeric` cell as a decimal, read from PostgreSQL's binary form here (postgres-nio's
    /// decoding would stop the process on a value too large for `Decimal`): a value `Decimal`
    /// cannot hold comes back as its text, which the codec then reports.
    private func numeric(_ buffer: ByteBuffer, binary: Bool) -> StoredValue {
        guard binary else {
            let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
            return Self.decimal(text).map { .decimal($0) } ?? .text(text)
        }
        var cell = buffer
        guard let count = cell.readInteger(as: Int16.self), let weight = cell.readInteger(as: Int16.self),
              let sign = cell.readInteger(as: UInt16.self), let scale = cell.readInteger(as: Int16.self),
              count >= 0, scale >= 0 else { return .null }
        switch sign {
        case 0xC000: return .decimal(.nan)
        case 0x0000, 0x4000: break
        // ±Infinity (PostgreSQL 14 and later), which no Decimal holds: the codec reports it.
        default: return .text(sign == 0xD000 ? "Infinity" : "-Infinity")
        }
        var groups: [Int16] = []
        groups.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let group = cell.readInteger(as: Int16.self), group >= 0, group < 10_000 else { return .null }
            groups.append(group)
        }
        // Base-10000 digit groups: `weight` is the power of the first one.
        func group(_ position: Int) -> String {
            let value = position >= 0 && position < groups.count ? groups[position] : 0
            let digits = String(value)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            var integer = ""
            for position in 0...Int(weight) { integer += group(position) }
            let trimmed = integer.drop { $0 == "0" }
            text += trimmed.isEmpty ? "0" : String(trimmed)
        }
        if scale > 0 {
            var fraction = ""
            var position = Int(weight) + 1
            while fraction.count < Int(scale) {
                fraction += group(position)
                position += 1
            }
            text += "." + fraction.prefix(Int(scale))
        }
        return Self.decimal(text).map { .decimal($0) } ?? .text(text)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    private static func decimal(_ text: String) -> Decimal? {
        text == "NaN" ? .nan : Decimal(string: text, locale: posix)
    }

    /// The current row's cell at `index`, for postgres-nio's own decoding.
    private func cell(_ index: Int, _ buffer: ByteBuffer) -> PostgresCell {
        let first = cells[index]
        return PostgresCell(bytes: buffer, dataType: first.dataType, format: first.format, columnName: first.columnName, columnIndex: index)
    }
}
#endif
