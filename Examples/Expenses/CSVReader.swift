import ExpensesCore
import Foundation

/// Reads the import format: a header `amount,date,note,category`, then one expense per line;
/// fields may be quoted (`"a, b"`, with `""` for a quote). Every line is checked before anything
/// is written, and the first bad one is reported by its line number.
enum CSVReader {
    static let header = ["amount", "date", "note", "category"]

    static func expenses(in text: String) throws -> [ExpenseRowInput] {
        let lines = try records(text)
        guard let first = lines.first else { throw ExpenseInputError(field: "file", message: "the file is empty; its first line must be \(header.joined(separator: ","))") }
        guard first.fields.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) == header else {
            throw ExpenseInputError(field: "file", message: "the first line must be \(header.joined(separator: ",")), not \(first.fields.joined(separator: ","))")
        }
        var rows: [ExpenseRowInput] = []
        for line in lines.dropFirst() where !(line.fields.count == 1 && line.fields[0].isEmpty) {
            guard line.fields.count == header.count else {
                throw ExpenseInputError(field: "file", message: "line \(line.number) has \(line.fields.count) fields; each line has \(header.count): \(header.joined(separator: ","))")
            }
            do {
                let amount = try ExpenseInput.amount(line.fields[0].trimmingCharacters(in: .whitespaces))
                let date = try ExpenseInput.day(line.fields[1].trimmingCharacters(in: .whitespaces))
                let note = try ExpenseInput.note(line.fields[2].isEmpty ? nil : line.fields[2])
                let category = line.fields[3].trimmingCharacters(in: .whitespaces)
                guard category.count <= 40 else { throw ExpenseInputError(field: "category", message: "A category name has 1 to 40 characters.") }
                rows.append(ExpenseRowInput(amount: amount, date: date, note: note, category: category.isEmpty ? nil : category))
            } catch let error as ExpenseInputError {
                throw ExpenseInputError(field: "file", message: "line \(line.number): \(error.message)")
            }
        }
        return rows
    }

    /// The file's records, each with the line it starts on.
    static func records(_ text: String) throws -> [(number: Int, fields: [String])] {
        var records: [(number: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var line = 1
        var start = 1
        var iterator = text.makeIterator()
        var pending: Character?
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty:
                quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                fields.append(field)
                records.append((start, fields))
                fields = []
                field = ""
                line += 1
                start = line
            default:
                field.append(character)
            }
        }
        guard !quoted else { throw ExpenseInputError(field: "file", message: "line \(start): a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append((start, fields))
        }
        return records
    }
}
