import Foundation
import OpenSwiftData

/// An attribute's value on the wire: its stored form, tagged with its kind, so it reads back
/// exactly (a date to the bit, a decimal digit for digit, a blob byte for byte).
struct SyncValue: Codable, Hashable, Sendable {
    let stored: StoredValue

    init(_ stored: StoredValue) {
        self.stored = stored
    }

    private enum CodingKeys: String, CodingKey {
        case null = "n", integer = "i", real = "r", text = "t", blob = "b", date = "d", uuid = "u", decimal = "m"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a value has exactly one kind"))
        }
        switch key {
        case .null: stored = .null
        case .integer: stored = .integer(try container.decode(Int64.self, forKey: key))
        case .real:
            // JSON has no NaN or infinities: those travel as text.
            if let text = try? container.decode(String.self, forKey: key) {
                guard let real = Double(text), !real.isFinite else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(text)' is not a special real")
                }
                stored = .real(real)
            } else {
                stored = .real(try container.decode(Double.self, forKey: key))
            }
        case .text: stored = .text(try container.decode(String.self, forKey: key))
        case .blob: stored = .blob(try container.decode(Data.self, forKey: key))
        case .date:
            // Seconds since 2001 by bit pattern, so no date is rounded on the way.
            stored = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try container.decode(UInt64.self, forKey: key))))
        case .uuid: stored = .uuid(try container.decode(UUID.self, forKey: key))
        case .decimal:
            let text = try container.decode(String.self, forKey: key)
            guard let decimal = Self.decimal(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(text.prefix(60))' is not a decimal")
            }
            stored = .decimal(decimal)
        }
    }

    /// A decimal written as `Decimal.description` writes one (or `NaN`): digits with at most one
    /// point, an optional sign and exponent. Foundation's parser reads a prefix and stops
    /// (`"1e"` as 1, `"-"` as 0), so the whole text is checked first.
    static func decimal(_ text: String) -> Decimal? {
        if text == "NaN" { return .nan }
        let bytes = Array(text.utf8)
        guard bytes.count <= 200 else { return nil }
        var index = 0
        func skip(_ allowed: (UInt8) -> Bool) -> Int {
            let start = index
            while index < bytes.count, allowed(bytes[index]) { index += 1 }
            return index - start
        }
        let digit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let sign = { (byte: UInt8) in byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") }
        if index < bytes.count, sign(bytes[index]) { index += 1 }
        var digits = skip(digit)
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            digits += skip(digit)
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, sign(bytes[index]) { index += 1 }
            let exponent = skip(digit)
            guard exponent > 0, exponent <= 4 else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch stored {
        case .null: try container.encodeNil(forKey: .null)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .real(let value):
            if value.isFinite { try container.encode(value, forKey: .real) } else { try container.encode(String(value), forKey: .real) }
        case .text(let value): try container.encode(value, forKey: .text)
        case .blob(let value): try container.encode(value, forKey: .blob)
        case .date(let value): try container.encode(value.timeIntervalSinceReferenceDate.bitPattern, forKey: .date)
        case .uuid(let value): try container.encode(value, forKey: .uuid)
        case .decimal(let value): try container.encode(value.isNaN ? "NaN" : value.description, forKey: .decimal)
        }
    }
}
