import Foundation
import Observation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The command layer between the views (here: the command line) and the data: it adds, deletes
/// and seeds expenses through an injected `ModelContext`, and exposes its state for the UI.
@Observable
@MainActor
final class ExpenseViewModel {
    /// True while a save is running; the add form disables Save meanwhile.
    var isSaving = false
    /// The last error, for the UI to show.
    var errorMessage: String?

    private let context: ModelContext

    init(context: ModelContext) {
        self.context = context
    }

    static let defaultCategories = ["Food", "Transport", "Shopping", "Bills", "Entertainment"]

    /// The amount typed in the add form, if it is a number; Save stays disabled otherwise.
    static func parseAmount(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// Whether the add form's Save button is enabled.
    func canSave(amountText: String) -> Bool {
        !isSaving && ExpenseViewModel.parseAmount(amountText) != nil
    }

    /// Records an expense and saves it.
    @discardableResult
    func addExpense(amount: Double, note: String?, tags: [String] = [], category: Category?, date: Date = .now) -> Bool {
        isSaving = true
        defer { isSaving = false }
        let trimmed = note?.trimmingCharacters(in: .whitespacesAndNewlines)
        let cleanTags = tags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let expense = Expense(
            amount: amount, date: date, note: trimmed?.isEmpty == false ? trimmed : nil,
            tags: cleanTags.isEmpty ? nil : cleanTags, category: category)
        context.insert(expense)
        return save()
    }

    /// Deletes an expense and saves.
    @discardableResult
    func deleteExpense(_ expense: Expense) -> Bool {
        context.delete(expense)
        return save()
    }

    /// Seeds default categories and a few sample expenses when the store is empty, so the app
    /// never starts blank. Does nothing when data exists, so it runs once however often it is called.
    func setupInitialData(categories: [Category], expenses: [Expense]) {
        guard categories.isEmpty && expenses.isEmpty else { return }
        var byName: [String: Category] = [:]
        for name in ExpenseViewModel.defaultCategories {
            let category = Category(name: name)
            context.insert(category)
            byName[name] = category
        }
        let day: TimeInterval = 86_400
        let now = Date.now
        let samples: [(Double, String, String, TimeInterval)] = [
            (45.00, "Lunch with the team", "Food", 0),
            (12.50, "Bus pass top-up", "Transport", 1),
            (89.99, "Running shoes", "Shopping", 2),
            (60.00, "Electricity", "Bills", 4),
            (15.00, "Cinema", "Entertainment", 6),
            (8.75, "Coffee and pastry", "Food", 7),
        ]
        for (amount, note, category, daysAgo) in samples {
            context.insert(Expense(amount: amount, date: now.addingTimeInterval(-daysAgo * day), note: note, category: byName[category]))
        }
        save()
    }

    @discardableResult
    private func save() -> Bool {
        do {
            try context.save()
            errorMessage = nil
            return true
        } catch {
            errorMessage = "Could not save: \(error)"
            context.rollback()
            return false
        }
    }
}
