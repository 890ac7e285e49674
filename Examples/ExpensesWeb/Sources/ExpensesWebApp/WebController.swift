#if Studio
import ExpensesCore
import Foundation
import Hummingbird
import Mustache
import OpenSwiftData
import OpenSwiftDataSync

/// The HTML page: the expenses (filtered by category, text and days) with their total, totals
/// by category, a chart of spending per month (``SpendingChart``), a form to add an expense and
/// a button to delete one. Rendered on the server
/// from `page.mustache`; forms post and are redirected back (303), or the page comes back with
/// status 400 and what is wrong next to each field.
struct WebController {
    let service: ExpensesService
    let templates: MustacheLibrary
    /// The sync server whose offers the page lists and answers (account mode); `nil` otherwise.
    var sharing: SyncServer? = nil
    /// Whether the page has a sign-out button (account mode).
    var signsOut = false

    /// The most expenses the page lists.
    static let pageSize = 200
    /// The most ledgers the page lists (by name; it says how many more there are), so a user
    /// given many ledgers gets a page of the same size.
    static let ledgerLines = 20

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.get("/", use: page)
        router.post("expenses", use: add)
        router.post("expenses/:id/delete", use: delete)
        router.post("offers/answer", use: answerOffer)
    }

    /// What an offer's accept or decline button sends.
    struct OfferForm: Decodable {
        var root: String
        var owner: String
        var answer: String
    }

    /// Accepts or declines an offer of the signed-in user (account mode), then back to the page.
    @Sendable func answerOffer(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        guard let server = sharing, let user = RequestUser.current else { throw APIError(.notFound, "There are no offers on this server.") }
        let buffer = try await request.body.collect(upTo: 4096)
        guard let form = try? URLEncodedFormDecoder().decode(OfferForm.self, from: String(buffer: buffer)), let root = UUID(uuidString: form.root),
              ["accept", "decline"].contains(form.answer) else {
            throw APIError(.badRequest, "The offer's form could not be read; send it again.")
        }
        try await service.container.perform { _ in
            guard let offer = try server.offers(for: user).first(where: { $0.root == root && $0.owner == form.owner }) else {
                throw APIError(.notFound, "There is no such offer (its sharer may have ended it).")
            }
            if form.answer == "accept" { try server.accept(offer, for: user) } else { try server.decline(offer, for: user) }
        }
        return .redirect(to: "/", type: .normal)
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
                throw InternalFailure.saving(viewModel, "The expense could not be saved.")
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
            guard let expense = try viewModel.expense(id) else { return }
            guard viewModel.deleteExpense(expense) else { throw InternalFailure.saving(viewModel, "The expense could not be deleted.") }
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
        /// Ledgers beyond those listed.
        var moreLedgers = 0
        /// The offers waiting for the user's answer (account mode).
        var offers: [SyncOffer] = []
    }

    /// One ledger as the page lists it: whose it is, the user's role in it, its expenses.
    struct LedgerLine: Sendable {
        var name: String
        var owner: String
        var role: String
        var count: Int
        var total: Double
    }

    /// The first ``ledgerLines`` of the user's ledgers and those shared with them and accepted
    /// (in account mode), by name, each with its owner and the user's role as the ledger's
    /// shares say; and how many more there are.
    static func ledgers(_ viewModel: ExpenseViewModel, in context: ModelContext) throws -> (lines: [LedgerLine], more: Int) {
        let ledgers = try viewModel.ledgers(limit: ledgerLines)
        let lines = try ledgers.map { ledger in
            let shared = try context.shares(of: ledger).first { $0.grantee == context.owner }
            return LedgerLine(name: ledger.name, owner: shared?.owner ?? "you", role: shared?.role ?? "owner",
                              count: ledger.expenses.count, total: ledger.expenses.reduce(0) { $0 + $1.amount })
        }
        let all = ledgers.count < ledgerLines ? ledgers.count : try context.fetchCount(FetchDescriptor<Ledger>())
        return (lines, all - lines.count)
    }

    private func render(
        filter: ExpenseFilter = ExpenseFilter(), best: Bool = false, from: String? = nil, to: String? = nil, filterError: String? = nil,
        form: AddForm = AddForm(), errors: [String: String] = [:], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let user = RequestUser.current, sharing = self.sharing
        let data = try await service.perform { viewModel, context in
            let ledgers = try Self.ledgers(viewModel, in: context)
            let others = (totals: try viewModel.categoryTotals(), months: try viewModel.monthlySpending(), ledgers: ledgers.lines)
            var data: PageData
            if best {
                let matches = try viewModel.bestMatches(filter, limit: Self.pageSize)
                data = PageData(expenses: try matches.map { try ExpenseJSON($0.expense) }, passages: matches.map { ($0.note, $0.startsWithinNote, $0.endsWithinNote) },
                                count: matches.count, total: matches.reduce(0) { $0 + $1.expense.amount }, totals: others.totals, months: others.months, ledgers: others.ledgers)
            } else {
                let (count, total) = try viewModel.total(filter)
                let expenses = try viewModel.expenses(filter, limit: Self.pageSize).map(ExpenseJSON.init)
                data = PageData(expenses: expenses, count: count, total: total, totals: others.totals, months: others.months, ledgers: others.ledgers)
            }
            data.moreLedgers = ledgers.more
            if let sharing, let user { data.offers = try sharing.offers(for: user) }
            return data
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
            "moreLedgers": data.moreLedgers,
            "hasMoreLedgers": data.moreLedgers > 0,
            "signsOut": signsOut,
            "hasOffers": !data.offers.isEmpty,
            "offers": data.offers.map { ["root": $0.root.uuidString, "owner": $0.owner, "role": $0.role.rawValue, "title": $0.title ?? $0.entity] as [String: Any] },
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
#endif
