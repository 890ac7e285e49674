import Foundation

/// A type stored as one primitive value without help: numbers, strings, dates, data, identifiers.
protocol StoredScalar {
    static var storedType: StoredType { get }
    /// What the values mean beyond their stored form (dates, UUIDs, decimals); `nil` by default.
    static var meaning: ValueMeaning? { get }
    static func decode(_ value: StoredValue) throws -> Self
    var storedValue: StoredValue { get }
}

extension StoredScalar {
    static var meaning: ValueMeaning? { nil }

    static func failure(_ value: StoredValue) -> DecodingFailure {
        DecodingFailure(expected: String(describing: Self.self), found: value)
    }
}

extension Bool: StoredScalar {
    static var storedType: StoredType { .integer }
    static func decode(_ value: StoredValue) throws -> Bool {
        switch value {
        case .integer(let raw): return raw != 0
        case .real(let raw): return raw != 0
        default: throw failure(value)
        }
    }
    var storedValue: StoredValue { .integer(self ? 1 : 0) }
}

/// Integers up to 64 bits. `UInt64` and `UInt` values above `Int64.max` are stored by bit pattern
/// (they round-trip exactly; a store orders such values by the signed pattern).
protocol StoredInteger: StoredScalar, FixedWidthInteger {}

extension StoredInteger {
    static var storedType: StoredType { .integer }
    static func decode(_ value: StoredValue) throws -> Self {
        let raw: Int64
        switch value {
        case .integer(let stored): raw = stored
        case .real(let stored) where stored.rounded() == stored && abs(stored) < 9.2e18: raw = Int64(stored)
        default: throw failure(value)
        }
        if Self.bitWidth == 64 && !Self.isSigned {
            return Self(truncatingIfNeeded: UInt64(bitPattern: raw))
        }
        guard let result = Self(exactly: raw) else { throw failure(value) }
        return result
    }
    var storedValue: StoredValue {
        if Self.bitWidth == 64 && !Self.isSigned {
            return .integer(Int64(bitPattern: UInt64(truncatingIfNeeded: self)))
        }
        return .integer(Int64(self))
    }
}

extension Int: StoredInteger {}
extension Int8: StoredInteger {}
extension Int16: StoredInteger {}
extension Int32: StoredInteger {}
extension Int64: StoredInteger {}
extension UInt: StoredInteger {}
extension UInt8: StoredInteger {}
extension UInt16: StoredInteger {}
extension UInt32: StoredInteger {}
extension UInt64: StoredInteger {}

/// Stored as a real, NaN, infinities and `-0.0` included. Engines without NaN store it as the text
/// `NaN` (SQLite would turn it into null), which reads back as NaN here.
extension Double: StoredScalar {
    static var storedType: StoredType { .real }
    static let storedNaN = "NaN"
    static func decode(_ value: StoredValue) throws -> Double {
        switch value {
        case .real(let raw): return raw
        case .integer(let raw): return Double(raw)
        case .text(storedNaN): return .nan
        default: throw failure(value)
        }
    }
    var storedValue: StoredValue { .real(self) }
}

extension Float: StoredScalar {
    static var storedType: StoredType { .real }
    static func decode(_ value: StoredValue) throws -> Float {
        Float(try Double.decode(value))
    }
    var storedValue: StoredValue { Double(self).storedValue }
}

extension String: StoredScalar {
    static var storedType: StoredType { .text }
    static func decode(_ value: StoredValue) throws -> String {
        guard case .text(let raw) = value else { throw failure(value) }
        return raw
    }
    var storedValue: StoredValue { .text(self) }
}

/// Dates are stored as seconds since 2001-01-01 00:00:00 UTC, `Date`'s own representation, so
/// they round-trip exactly and compare in a store as they do in Swift.
extension Date: StoredScalar {
    static var storedType: StoredType { .real }
    static var meaning: ValueMeaning? { .date }
    static func decode(_ value: StoredValue) throws -> Date {
        if case .date(let date) = value { return date }
        return Date(timeIntervalSinceReferenceDate: try Double.decode(value))
    }
    var storedValue: StoredValue { .date(self) }
}

extension Data: StoredScalar {
    static var storedType: StoredType { .blob }
    static func decode(_ value: StoredValue) throws -> Data {
        switch value {
        case .blob(let raw): return raw
        case .text(let raw): return Data(raw.utf8)
        default: throw failure(value)
        }
    }
    var storedValue: StoredValue { .blob(self) }
}

/// UUIDs are stored as their 16 bytes.
extension UUID: StoredScalar {
    static var storedType: StoredType { .blob }
    static var meaning: ValueMeaning? { .uuid }
    static func decode(_ value: StoredValue) throws -> UUID {
        switch value {
        case .uuid(let uuid): return uuid
        case .blob(let raw) where raw.count == 16:
            let bytes = [UInt8](raw)
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        case .text(let raw):
            guard let uuid = UUID(uuidString: raw) else { throw failure(value) }
            return uuid
        default:
            throw failure(value)
        }
    }
    var storedValue: StoredValue { .uuid(self) }
}

/// URLs are stored as their absolute string.
extension URL: StoredScalar {
    static var storedType: StoredType { .text }
    static func decode(_ value: StoredValue) throws -> URL {
        guard case .text(let raw) = value, let url = URL(string: raw) else { throw failure(value) }
        return url
    }
    var storedValue: StoredValue { .text(absoluteString) }
}

/// Decimals are stored as text so no digit is lost; `Decimal.nan` as `NaN`.
extension Decimal: StoredScalar {
    /// Made once: decoding runs per row.
    private static let posix = Locale(identifier: "en_US_POSIX")
    static var storedType: StoredType { .text }
    static var meaning: ValueMeaning? { .decimal }
    static func decode(_ value: StoredValue) throws -> Decimal {
        switch value {
        case .decimal(let decimal): return decimal
        case .text(Double.storedNaN): return .nan
        case .text(let raw):
            guard let decimal = Decimal(string: raw, locale: posix) else { throw failure(value) }
            return decimal
        case .integer(let raw): return Decimal(raw)
        // Core Data keeps decimals as numbers: the shortest text that reads back as the same
        // Double is the decimal that was written (19.99, not 19.989999999999998).
        // An infinity is no Decimal (Decimal(Double.infinity) is 0): refused, not read as 0.
        case .real(let raw) where raw.isFinite: return Decimal(string: "\(raw)", locale: posix) ?? Decimal(raw)
        default: throw failure(value)
        }
    }
    var storedValue: StoredValue { .decimal(self) }
}

// MARK: - Codecs
