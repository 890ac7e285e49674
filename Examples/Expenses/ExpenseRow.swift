import Foundation
import ExpensesCore

/// How one expense is shown in a list (the command-line `ExpenseRowView`).
enum ExpenseRow {
    static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }()

    static var header: String {
        "\(pad("#", 3, left: true))  \(pad("Date", 16))  \(pad("Amount", 8, left: true))  \(pad("Category", 13))  Note"
    }

    static func line(_ expense: Expense, number: Int) -> String {
        let date = dateFormatter.string(from: expense.date)
        let amount = money(expense.amount)
        let category = expense.category?.name ?? "—"
        let tags = (expense.tags ?? []).map { " #\($0)" }.joined()
        return "\(pad(String(number), 3, left: true))  \(date)  \(pad(amount, 8, left: true))  \(pad(category, 13))  \(expense.note ?? "")\(tags)"
    }

    static func money(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let space = String(repeating: " ", count: width - count)
        return left ? space + text : text + space
    }
}
