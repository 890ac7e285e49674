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

    /// The current row's cell at `index`, for postgres-nio's own decoding.
    private func cell(_ index: Int, _ buffer: ByteBuffer) -> PostgresCell {
        let first = cells[index]
        return PostgresCell(bytes: buffer, dataType: first.dataType, format: first.format, columnName: first.columnName, columnIndex: index)
    }
}
#endif
