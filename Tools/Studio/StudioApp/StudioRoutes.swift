#if Studio
import Foundation
import Hummingbird
import OpenSwiftData

/// The studio's pages: the schema, an entity's rows, one row, history, statistics, and — with
/// `--allow-edits` — a value changed or a row deleted.
struct StudioRoutes {
    let store: StudioStore

    func add(to router: Router<BasicRequestContext>) {
        router.get("") { _, _ in Response(status: .seeOther, headers: [.location: "/schema"]) }
        router.get("schema", use: schema)
        router.get("entity/:entity", use: rows)
        router.get("entity/:entity/:key", use: row)
        router.get("history", use: history)
        router.get("statistics", use: statistics)
        router.post("entity/:entity/:key/edit", use: edit)
        router.post("entity/:entity/:key/delete", use: delete)
    }

    @Sendable func schema(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let browser = store.browser
        let list = browser.catalog.entities.map { entity in
            "<li data-entity=\"\(HTML.escape(entity.name))\">" + HTML.link(HTML.url(["entity", entity.name]), entity.name)
                + " <span class=\"muted\">\(entity.attributes.count) attributes, \(entity.relationships.count) relationships</span></li>"
        }.joined()
        let body = "<h1>Schema</h1><p class=\"muted\">Read from the store itself: no app model types. Click an entity to see its rows.</p>"
            + "<div id=\"diagram\">\(SchemaDiagram.svg(browser.catalog))</div><ul id=\"entities\">\(list)</ul>"
        return html(StudioLayout.page(title: "Schema", browser: browser, section: .schema, body: body))
    }

    @Sendable func rows(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let browser = store.browser
        let name = try context.parameters.require("entity")
        guard let entity = browser.catalog.entity(name) else { return notFound("There is no entity \(name) in this store.") }
        let query = Self.query(entity: name, request.uri.queryParameters)
        do {
            let page = try await store.run { try $0.page(query) }
            return html(RowsPage.render(browser: browser, entity: entity, query: query, page: page, error: nil))
        } catch let error as SwiftDataError {
            // A condition that does not apply: the page says why, and the store is not touched.
            return html(RowsPage.render(browser: browser, entity: entity, query: query, page: nil, error: error.description), status: .badRequest)
        }
    }

    @Sendable func row(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let browser = store.browser
        let name = try context.parameters.require("entity")
        guard let entity = browser.catalog.entity(name) else { return notFound("There is no entity \(name) in this store.") }
        guard let key = Int64(try context.parameters.require("key")) else { return notFound("A row's key is a whole number.") }
        let found = try await store.run { browser -> (BrowsedRow, [BrowsedTransaction], [String: [Int64: String]])? in
            guard let row = try browser.row(name, key: key) else { return nil }
            return (row, try browser.history(limit: 50, entity: name, key: key), try browser.labels(for: [row]))
        }
        guard let (row, history, labels) = found else { return html(RowPage.missing(browser: browser, entity: entity, key: key), status: .notFound) }
        return html(RowPage.render(browser: browser, entity: browser.catalog.entity(row.entity) ?? entity, row: row, history: history, labels: labels))
    }

    @Sendable func history(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let transactions = try await store.run { try $0.history(limit: HistoryPage.limit) }
        return html(HistoryPage.render(browser: store.browser, history: transactions))
    }

    @Sendable func statistics(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let statistics = try await store.run { try $0.statistics() }
        return html(StatisticsPage.render(browser: store.browser, statistics: statistics))
    }

    @Sendable func edit(_ request: Request, context: BasicRequestContext) async throws -> Response {
        try await change(request, context: context) { browser, entity, key, form in
            guard let property = form["property"] else { throw SwiftDataError(.unsupportedPredicate, "the form names no property to change") }
            try browser.update(entity, key: key, property: property, to: form["nil"] == "1" ? nil : form["value"] ?? "")
            return HTML.url(["entity", entity, String(key)])
        }
    }

    @Sendable func delete(_ request: Request, context: BasicRequestContext) async throws -> Response {
        try await change(request, context: context) { browser, entity, key, _ in
            try browser.delete(entity, key: key)
            return HTML.url(["entity", entity])
        }
    }

    /// An edit: refused unless the studio was started with `--allow-edits`; otherwise run, and
    /// answered with a redirect to `body`'s page, or the row's page with the error.
    private func change(
        _ request: Request, context: BasicRequestContext,
        _ body: @escaping @Sendable (StoreBrowser, String, Int64, [String: String]) throws -> String
    ) async throws -> Response {
        let browser = store.browser
        let name = try context.parameters.require("entity")
        guard browser.catalog.entity(name) != nil, let key = Int64(try context.parameters.require("key")) else {
            return notFound("There is no such row in this store.")
        }
        guard browser.allowsEdits else {
            return message("The studio was started read-only: nothing was changed. Start it with --allow-edits to change or delete rows.", status: .forbidden)
        }
        var request = request
        let form = Self.form(try await request.collectBody(upTo: 64 * 1024))
        do {
            let target = try await store.run { try body($0, name, key, form) }
            return Response(status: .seeOther, headers: [.location: target])
        } catch let error as SwiftDataError {
            return message("Nothing was changed: \(error.description)", status: .conflict)
        }
    }

    // MARK: Reading requests

    /// The page's query from its URL's parameters (property names are checked by the browser).
    static func query(entity: String, _ parameters: Parameters) -> BrowseQuery {
        var query = BrowseQuery(entity: entity)
        query.sort = parameters.get("sort").flatMap { $0 == "key" || $0.isEmpty ? nil : $0 }
        query.ascending = parameters.get("order") != "desc"
        // Any number a URL holds is taken, kept within what a page may ask for.
        query.offset = min(max(0, parameters.get("offset", as: Int.self) ?? 0), BrowseQuery.maximumOffset)
        query.limit = min(max(parameters.get("limit", as: Int.self) ?? RowsPage.pageSize, 1), 1000)
        let properties = parameters.getAll("fp"), operators = parameters.getAll("fo"), values = parameters.getAll("fv")
        for index in properties.indices where index < operators.count {
            guard let op = BrowseCondition.Operator(rawValue: operators[index]) else { continue }
            let value = index < values.count ? values[index] : ""
            // The form's empty last row adds nothing.
            if op.takesValue && value.isEmpty { continue }
            query.conditions.append(BrowseCondition(property: properties[index], op: op, value: value))
        }
        if let owner = parameters.get("owner"), let key = parameters.get("ownerKey", as: Int64.self), let via = parameters.get("via") {
            query.related = BrowseQuery.Related(owner: owner, key: key, relationship: via)
        }
        return query
    }

    /// A form body (`application/x-www-form-urlencoded`) as names and values.
    static func form(_ body: ByteBuffer) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] where fields[item.name] == nil { fields[item.name] = item.value ?? "" }
        return fields
    }

    // MARK: Responses

    private func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    private func message(_ text: String, status: HTTPResponse.Status) -> Response {
        html(StudioLayout.page(title: "Studio", browser: store.browser, section: .rows, body: "<p class=\"error\" role=\"alert\">\(HTML.escape(text))</p>"), status: status)
    }

    private func notFound(_ text: String) -> Response {
        message(text, status: .notFound)
    }
}
#endif
