#if Studio
import ExpensesCore
import Foundation
import Hummingbird
import NIOCore
import OpenSwiftData

/// The JSON API under `/api`: expenses (list with filters and paging, create, read, update,
/// delete), categories with their totals, and a summary. Input is validated before anything is
/// written; errors are ``APIError``s.
struct APIController {
    let service: ExpensesService

    /// The most expenses one page returns.
    static let largestPage = 500

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        let api = router.group("api")
        api.get("expenses", use: list)
        api.post("expenses", use: create)
        api.get("expenses/:id", use: read)
        api.put("expenses/:id", use: update)
        api.delete("expenses/:id", use: delete)
        api.get("categories", use: categories)
        api.post("categories", use: createCategory)
        api.get("summary", use: summary)
        api.get("spending/monthly", use: monthlySpending)
    }

    @Sendable func list(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let query = FormQuery(request)
        let filter = try Self.filter(request)
        let offset = try Self.integer(query["offset"], field: "offset", default: 0, range: 0...Int(Int32.max))
        let limit = try Self.integer(query["limit"], field: "limit", default: 50, range: 1...Self.largestPage)
        let page = try await run { viewModel, _ in
            if let name = filter.category { _ = try viewModel.category(named: name) }
            let (count, total) = try viewModel.total(filter)
            let expenses = try viewModel.expenses(filter, offset: offset, limit: limit).map(ExpenseJSON.init)
            return ExpenseListJSON(expenses: expenses, count: count, total: total, offset: offset, limit: limit)
        }
        return try Self.json(page)
    }

    @Sendable func create(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let input = try await Self.decode(ExpenseInputJSON.self, from: request, context: context)
        let valid = try Self.checked { try input.validated() }
        let created = try await run { viewModel, _ in
            let category = try input.category.map { try viewModel.category(named: $0) }
            let ledger = try input.ledger.flatMap { try viewModel.ledger(named: $0) }
            guard let expense = viewModel.addExpense(amount: valid.amount, note: valid.note, tags: valid.tags, category: category, date: valid.date ?? .now, ledger: ledger) else {
                throw InternalFailure.saving(viewModel, "The expense could not be saved.")
            }
            return try ExpenseJSON(expense)
        }
        var response = try Self.json(created, status: .created)
        response.headers[.location] = "/api/expenses/\(created.id)"
        return response
    }

    @Sendable func read(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let id = try Self.identifier(context)
        let expense = try await run { viewModel, _ in
            guard let expense = try viewModel.expense(id) else { throw Self.notFound }
            return try ExpenseJSON(expense)
        }
        return try Self.json(expense)
    }

    @Sendable func update(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let id = try Self.identifier(context)
        let input = try await Self.decode(ExpenseInputJSON.self, from: request, context: context)
        let valid = try Self.checked { try input.validated() }
        let updated = try await run { viewModel, _ in
            guard let expense = try viewModel.expense(id) else { throw Self.notFound }
            let category = try input.category.map { try viewModel.category(named: $0) }
            guard viewModel.update(expense, amount: valid.amount, note: valid.note, tags: valid.tags, category: category, date: valid.date ?? expense.date) else {
                throw InternalFailure.saving(viewModel, "The expense could not be saved.")
            }
            return try ExpenseJSON(expense)
        }
        return try Self.json(updated)
    }

    @Sendable func delete(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let id = try Self.identifier(context)
        try await run { viewModel, _ in
            guard let expense = try viewModel.expense(id) else { throw Self.notFound }
            guard viewModel.deleteExpense(expense) else {
                throw InternalFailure.saving(viewModel, "The expense could not be deleted.")
            }
        }
        return Response(status: .noContent)
    }

    @Sendable func categories(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        try Self.json(try await run { viewModel, _ in try viewModel.categoryTotals() })
    }

    @Sendable func createCategory(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let input = try await Self.decode(CategoryInputJSON.self, from: request, context: context)
        let colour = try Self.checked { () throws -> String in
            let colour = (input.colour ?? "grey").trimmingCharacters(in: .whitespaces)
            guard (1...20).contains(colour.count), colour.allSatisfy({ $0.isLetter || $0 == "#" || $0.isHexDigit }) else {
                throw ExpenseInputError(field: "colour", message: "A colour is a name or a #hex value of at most 20 characters.")
            }
            return colour
        }
        let created = try await run { viewModel, _ in
            let category = try viewModel.addCategory(name: input.name, colour: colour)
            return CategoryTotal(name: category.name, colour: category.colour, count: 0, total: 0)
        }
        return try Self.json(created, status: .created)
    }

    @Sendable func summary(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let summary = try await run { viewModel, _ in
            let categories = try viewModel.categoryTotals()
            return SummaryJSON(categories: categories, count: categories.reduce(0) { $0 + $1.count }, total: categories.reduce(0) { $0 + $1.total })
        }
        return try Self.json(summary)
    }

    /// Spending per category in each of the last twelve months, oldest first: the numbers the
    /// page's chart draws.
    @Sendable func monthlySpending(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        try Self.json(try await run { viewModel, _ in try viewModel.monthlySpending() })
    }

    // MARK: Helpers

    static let notFound = APIError(.notFound, "There is no such expense.", field: "id")

    /// Runs data work, turning input errors found there (an unknown category) into 400s.
    private func run<Result: Sendable>(_ body: @escaping @Sendable (ExpenseViewModel, ModelContext) throws -> Result) async throws -> Result {
        do {
            return try await service.perform(body)
        } catch let error as ExpenseInputError where error.field == "store" {
            // The store's own words (paths, SQL) are for the log, not the client.
            throw InternalFailure(description: error.message)
        } catch let error as ExpenseInputError {
            throw APIError(error)
        }
    }

    /// Runs validation, turning its errors into 400s.
    static func checked<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as ExpenseInputError {
            throw APIError(error)
        }
    }

    /// A JSON body of at most the context's upload size, decoded; malformed JSON, a value of the
    /// wrong type or a missing field is a 400 naming the field.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: ExpensesRequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "The request body is larger than \(context.maxUploadSize) bytes.")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch DecodingError.typeMismatch(_, let where_), DecodingError.valueNotFound(_, let where_) {
            let field = where_.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError(.badRequest, "'\(field)' has the wrong type: \(where_.debugDescription)", field: field)
        } catch DecodingError.keyNotFound(let key, _) {
            throw APIError(.badRequest, "'\(key.stringValue)' is required.", field: key.stringValue)
        } catch {
            throw APIError(.badRequest, "The request body is not valid JSON.")
        }
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    static func identifier(_ context: ExpensesRequestContext) throws -> PersistentIdentifier {
        guard let text = context.parameters.get("id"), let id = ExpenseIdentifier.identifier(text) else { throw notFound }
        return id
    }

    /// The list filter from the query's `category`, `from`, `to` (days, `to` included) and `search`.
    static func filter(_ request: Request) throws -> ExpenseFilter {
        let query = FormQuery(request)
        func text(_ key: String) -> String? { query[key] }
        let filter = try checked {
            ExpenseFilter(
                category: text("category"),
                from: try text("from").map { try ExpenseInput.day($0, field: "from") },
                before: try text("to").map { try ExpenseInput.day($0, field: "to").addingTimeInterval(86_400) },
                search: text("search"))
        }
        if let from = filter.from, let before = filter.before, from >= before {
            throw APIError(.badRequest, "'from' must not be after 'to'.", field: "from")
        }
        if let search = filter.search, search.count > 100 {
            throw APIError(.badRequest, "The search text has at most 100 characters.", field: "search")
        }
        return filter
    }

    static func integer(_ value: String?, field: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let value else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw APIError(.badRequest, "'\(field)' must be a whole number from \(range.lowerBound) to \(range.upperBound).", field: field)
        }
        return number
    }
}
#endif
