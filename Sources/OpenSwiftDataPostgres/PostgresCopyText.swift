#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData

/// Rows in the text form of PostgreSQL's `COPY … FROM STDIN`: a line per row, columns split by
/// tabs, `\N` for NULL, backslash escapes for a backslash, tab, newline and carriage return.
/// Each value is written so the server reads back exactly what the binary parameters would bind
/// (``PostgresSQLConnection/binds(_:typedValues:)``): integers and reals in their shortest
/// exact digits, dates as whole microseconds in UTC, bytes in hex.
enum PostgresCopyText {
    /// The rows of `width` values; `nil` where a value has no text form this writes (a date
    /// outside the years 1 to 9999): the rows then go up as arrays, which say the same.
    /// Throws for text holding NUL, which PostgreSQL cannot store.
    static func rows(_ values: [StoredValue], width: Int, typedValues: Set<ValueMeaning>) throws -> ByteBuffer? {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(values.count * 16)
        for (offset, value) in values.enumerated() {
            guard try write(value, into: &buffer, typedValues: typedValues) else { return nil }
            buffer.writeInteger(offset % width == width - 1 ? UInt8(ascii: "\n") : UInt8(ascii: "\t"))
        }
        return buffer
    }

    private static func write(_ value: StoredValue, into buffer: inout ByteBuffer, typedValues: Set<ValueMeaning>) throws -> Bool {
        switch value {
        case .null:
            buffer.writeStaticString("\\N")
        case .integer(let integer):
            buffer.writeString(String(integer))
        case .real(let real):
            // Swift's description is the shortest text that reads back as the same double.
            if real.isNaN {
                buffer.writeStaticString("NaN")
            } else if real.isInfinite {
                buffer.writeStaticString(real < 0 ? "-Infinity" : "Infinity")
            } else {
                buffer.writeString(real.description)
            }
        case .text(let text):
            try PostgresSQLConnection.checkText(text)
            writeEscaped(text, into: &buffer)
        case .blob(let data):
            // `\x` and hex digits; the backslash itself escaped for COPY.
            buffer.writeStaticString("\\\\x")
            let digits: StaticString = "0123456789abcdef"
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: data.count * 2) { target in
                digits.withUTF8Buffer { hex in
                    var position = 0
                    for byte in data {
                        target[position] = hex[Int(byte >> 4)]
                        target[position + 1] = hex[Int(byte & 0x0f)]
                        position += 2
                    }
                }
                return data.count * 2
            }
        case .uuid(let uuid) where typedValues.contains(.uuid):
            buffer.writeString(uuid.uuidString)
        case .decimal(let decimal) where typedValues.contains(.decimal):
            buffer.writeString(decimal.isNaN ? "NaN" : decimal.description)
        case .date(let date) where typedValues.contains(.date):
            guard let microseconds = PostgresDialect.microsecondsSince2000(date) else { throw PostgresSQLConnection.dateOutOfRange(date) }
            return writeTimestamp(microsecondsSince2000: microseconds, into: &buffer)
        case .date, .uuid, .decimal:
            return try write(value.storageForm, into: &buffer, typedValues: typedValues)
        }
        return true
    }

    /// `text` with COPY's escapes; most text has none of the four characters and is written whole.
    private static func writeEscaped(_ text: String, into buffer: inout ByteBuffer) {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
            buffer.writeString(text)
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    /// `YYYY-MM-DD hh:mm:ss.ffffff+00` for whole microseconds since 2000-01-01 UTC; `false`
    /// outside the years 1 to 9999 (earlier ones need PostgreSQL's `BC`).
    static func writeTimestamp(microsecondsSince2000 microseconds: Int64, into buffer: inout ByteBuffer) -> Bool {
        let perDay: Int64 = 86_400_000_000
        var days = microseconds / perDay
        var rest = microseconds % perDay
        if rest < 0 {
            rest += perDay
            days -= 1
        }
        // Howard Hinnant's days-to-civil, from 1970-01-01 (10,957 days before 2000-01-01).
        let z = days + 10_957 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard year >= 1, year <= 9_999 else { return false }
        let seconds = rest / 1_000_000
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                buffer.writeInteger(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        buffer.writeStaticString("-")
        digits(month, 2)
        buffer.writeStaticString("-")
        digits(day, 2)
        buffer.writeStaticString(" ")
        digits(seconds / 3_600, 2)
        buffer.writeStaticString(":")
        digits(seconds / 60 % 60, 2)
        buffer.writeStaticString(":")
        digits(seconds % 60, 2)
        buffer.writeStaticString(".")
        digits(rest % 1_000_000, 6)
        buffer.writeStaticString("+00")
        return true
    }
}
#endif
