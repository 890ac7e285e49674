import ExpensesCore
import Foundation
import Hummingbird
import Mustache
import OpenSwiftData

/// The HTML page: the expenses (filtered by category, text and days) with their total, totals
/// by category, a chart of spending per month (``SpendingChart``), a form to add an expense and
/// a button to delete one. Rendered on the server
/// from `page.mustache`; forms post and are redirected back (303), or the page comes back with
/// status 400 and what is wrong next to each field.
struct WebController {
    let service: ExpensesService
    let templates: MustacheLibrary

    /// The most expenses the page lists.
    static let pageSize = 200

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.get("/", use: page)
        router.post("expenses", use: add)
        router.post("expenses/:id/delete", use: delete)
    }

    /// What the add form sends: every field as typed.
    struct AddForm: Decodable {
        var amount: String?
        var note: String?
        var category: String?
        var date: String?
    }

    @Sendable func page(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        var filterError: String?
        let filter: ExpenseFilter
        do {
            filter = try APIController.filter(request)
        } catch let error as APIError {
            filterError = error.message
            filter = ExpenseFilter()
        }
        let query = FormQuery(request)
        // *Best match* orders a search; without one, the list stays newest first.
        let best = query["order"] == "best" && filter.search != nil
        return try await render(filter: filter, best: best, from: query["from"], to: query["to"], filterError: filterError)
    }

    @Sendable func add(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let form: AddForm
        do {
            form = try URLEncodedFormDecoder().decode(AddForm.self, from: String(buffer: buffer))
        } catch {
            return try await render(form: AddForm(), errors: ["form": "The form could not be read; send it again."], status: .badRequest)
        }
        // Everything is checked before the store is touched; every problem is reported at once.
        var errors: [String: String] = [:]
        var amount = 0.0, note: String?, date: Date?
        do { amount = try ExpenseInput.amount(form.amount ?? "") } catch let error as ExpenseInputError { errors[error.field] = error.message }
        do { note = try ExpenseInput.note(form.note) } catch let error as ExpenseInputError { errors[error.field] = error.message }
        if let day = form.date, !day.isEmpty {
            do { date = try ExpenseInput.day(day) } catch let error as ExpenseInputError { errors[error.field] = error.message }
        }
        if !errors.isEmpty {
            return try await render(form: form, errors: errors, status: .badRequest)
        }
        let categoryName = form.category.flatMap { $0.isEmpty ? nil : $0 }
        let checkedAmount = amount, checkedNote = note, checkedDate = date
        let saveError: String? = try await service.perform { viewModel, _ in
            let category: Category?
            do {
                category = try categoryName.map { try viewModel.category(named: $0) }
            } catch let error as ExpenseInputError {
                return error.message
            }
            guard viewModel.addExpense(amount: checkedAmount, note: checkedNote, category: category, date: checkedDate ?? .now) != nil else {
                throw InternalFailure(description: viewModel.errorMessage ?? "The expense could not be saved.")
            }
            return nil
        }
        if let saveError {
            return try await render(form: form, errors: [categoryName == nil ? "form" : "category": saveError], status: .badRequest)
        }
        return .redirect(to: "/", type: .normal)
    }

    @Sendable func delete(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let id = try APIController.identifier(context)
        try await service.perform { viewModel, _ in
            if let expense = try viewModel.expense(id) { viewModel.deleteExpense(expense) }
        }
        return .redirect(to: "/", type: .normal)
    }

    // MARK: Rendering

    /// What the page shows, read in one data job.
    struct PageData: Sendable {
        var expenses: [ExpenseJSON]
        /// For *Best match*: each expense's note in runs, the matches apart (escaped by the
        /// template like any value), with whether text before and after was left out.
        var passages: [(parts: [(text: String, isMatch: Bool)], before: Bool, after: Bool)]?
        var count: Int
        var total: Double
        var totals: [CategoryTotal]
        var months: [MonthSpending]
        var ledgers: [LedgerLine]
    }

    /// One ledger as the page lists it: whose it is, the user's role in it, its expenses.
    struct LedgerLine: Sendable {
        var name: String
        var owner: String
        var role: String
        var count: Int
        var total: Double
    }

    /// The user's ledgers and those shared with them (in account mode), each with its owner and
    /// the user's role as the ledger's shares say.
    static func ledgers(_ viewModel: ExpenseViewModel, in context: ModelContext) throws -> [LedgerLine] {
        try viewModel.ledgers().map { ledger in
            let shared = try context.shares(of: ledger).first { $0.grantee == context.owner }
            return LedgerLine(name: ledger.name, owner: shared?.owner ?? "you", role: shared?.role ?? "owner",
                              count: ledger.expenses.count, total: ledger.expenses.reduce(0) { $0 + $1.amount })
        }
    }

    private func render(
        filter: ExpenseFilter = ExpenseFilter(), best: Bool = false, from: String? = nil, to: String? = nil, filterError: String? = nil,
        form: AddForm = AddForm(), errors: [String: String] = [:], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let data = try await service.perform { viewModel, context in
            let others = (totals: try viewModel.categoryTotals(), months: try viewModel.monthlySpending(), ledgers: try Self.ledgers(viewModel, in: context))
            if best {
                let matches = try viewModel.bestMatches(filter, limit: Self.pageSize)
                return PageData(expenses: try matches.map { try ExpenseJSON($0.expense) }, passages: matches.map { ($0.note, $0.startsWithinNote, $0.endsWithinNote) },
                                count: matches.count, total: matches.reduce(0) { $0 + $1.expense.amount }, totals: others.totals, months: others.months, ledgers: others.ledgers)
            }
            let (count, total) = try viewModel.total(filter)
            let expenses = try viewModel.expenses(filter, limit: Self.pageSize).map(ExpenseJSON.init)
            return PageData(expenses: expenses, count: count, total: total, totals: others.totals, months: others.months, ledgers: others.ledgers)
        }
        let names = data.totals.compactMap { $0.colour == nil ? nil : $0.name }
        let today = ExpenseJSON.day.format(.now)
        let values: [String: Any] = [
            "count": data.count,
            "single": data.count == 1,
            "total": Self.money(data.total),
            "expenses": data.expenses.enumerated().map { index, expense -> [String: Any] in
                var row: [String: Any] = ["id": expense.id, "date": expense.date, "category": expense.category ?? "", "note": expense.note ?? "", "amount": Self.money(expense.amount)]
                if let passage = data.passages?[index], !passage.parts.isEmpty {
                    row["passage"] = ["before": passage.before, "after": passage.after,
                                      "parts": passage.parts.map { ["text": $0.text, "match": $0.isMatch] as [String: Any] }] as [String: Any]
                }
                return row
            },
            "best": best,
            "filterCategories": names.map { ["name": $0, "selected": $0 == filter.category] },
            "search": filter.search ?? "",
            "from": from ?? "",
            "to": to ?? "",
            "filterError": filterError ?? "",
            "form": ["amount": form.amount ?? "", "note": form.note ?? "", "date": form.date ?? today],
            "formCategories": names.map { ["name": $0, "selected": $0 == form.category] },
            "errors": errors,
            "totals": data.totals.map { ["name": $0.name, "count": $0.count, "total": Self.money($0.total)] as [String: Any] },
            "allCount": data.totals.reduce(0) { $0 + $1.count },
            "allTotal": Self.money(data.totals.reduce(0) { $0 + $1.total }),
            "chart": SpendingChart(months: data.months).values,
            "hasLedgers": !data.ledgers.isEmpty,
            "ledgers": data.ledgers.map { ["name": $0.name, "owner": $0.owner, "role": $0.role, "count": $0.count, "total": Self.money($0.total)] as [String: Any] },
        ]
        guard let html = templates.render(values, withTemplate: "page") else {
            throw APIError(.internalServerError, "The page template is missing.")
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func money(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
