import Foundation
@testable import OpenSwiftData

/// Reads rows of a store file with SQL of the test's own, around OpenSwiftData's stores: what a
/// save left in the file, as `value|value|…` lines (`NULL` for null, hex for blobs).
enum CoreDataFileRows {
    static func read(_ url: URL, _ sql: String) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, readOnly: false, create: false)
        var lines: [String] = []
        let row = try connection.prepare(sql)
        defer { row.reset() }
        while try row.step() {
            var fields: [String] = []
            for column in 0..<row.columnCount {
                // A SQLite row holds only the five storage forms.
                switch row.value(at: column).storageForm {
                case .null: fields.append("NULL")
                case .integer(let value): fields.append(String(value))
                case .real(let value): fields.append(String(value))
                case .text(let text): fields.append(text)
                case .blob(let data): fields.append(data.map { String(format: "%02X", $0) }.joined())
                case .date, .uuid, .decimal: fields.append("?")
                }
            }
            lines.append(fields.joined(separator: "|"))
        }
        return lines
    }
}
