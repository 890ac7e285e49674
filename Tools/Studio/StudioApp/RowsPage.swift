#if Studio
import Foundation
import OpenSwiftData

/// `/entity/NAME`: one page of an entity's rows, sortable by a column header, filtered by the
/// conditions in the form (run as SQL on the server), paged; to-one values link to the related
/// row, to-many relationships to the rows they lead to.
enum RowsPage {
    /// Rows per page unless the address asks for another number (`limit`, 1 to 1000).
    static let pageSize = 50

    static func render(browser: StoreBrowser, entity: StoreCatalog.Entity, query: BrowseQuery, page: BrowsePage?, error: String?) -> String {
        let attributes = entity.rowAttributes
        let relationships = entity.rowRelationships
        var body = "<h1>\(HTML.escape(entity.name))</h1>"
        if let related = query.related {
            body += "<p class=\"muted\">Rows that " + HTML.link(HTML.url(["entity", related.owner, String(related.key)]), "\(related.owner) \(related.key)")
                + " leads to through <code>\(HTML.escape(related.relationship))</code> · " + HTML.link(HTML.url(["entity", entity.name]), "all rows") + "</p>"
        }
        body += filterForm(entity: entity, attributes: attributes, relationships: relationships, query: query)
        if let error {
            body += "<p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>"
        }
        guard let page else { return StudioLayout.page(title: entity.name, browser: browser, section: .rows, entity: entity.name, body: body) }
        let shared = entity.sharesTable
        var head = "<th>" + sortLink("key", property: nil, query: query) + "</th>"
        if shared { head += "<th>entity</th>" }
        for attribute in attributes {
            head += "<th>" + sortLink(attribute.name, property: attribute.name, query: query) + " <span class=\"type\">\(HTML.escape(attribute.typeName))\(attribute.isOptional ? "?" : "")</span></th>"
        }
        for relationship in relationships {
            let target = relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination
            let title = relationship.isToMany ? HTML.escape(relationship.name) : sortLink(relationship.name, property: relationship.name, query: query)
            head += "<th>\(title) <span class=\"type\">\(HTML.escape(target))</span></th>"
        }
        var rows = ""
        for row in page.rows {
            rows += "<tr data-key=\"\(row.key)\"><td class=\"number\">" + HTML.link(HTML.url(["entity", row.entity, String(row.key)]), String(row.key)) + "</td>"
            if shared { rows += "<td>\(HTML.escape(row.entity))</td>" }
            for attribute in attributes {
                rows += cell(row.values[attribute.name] ?? .null)
            }
            for relationship in relationships {
                if relationship.isToMany {
                    rows += "<td>" + HTML.link(HTML.url(["entity", relationship.destination], [("owner", row.entity), ("ownerKey", String(row.key)), ("via", relationship.name)]), "rows →") + "</td>"
                } else if let key = row.references[relationship.name] {
                    rows += "<td>" + reference(relationship, key: key, labels: page.labels) + "</td>"
                } else {
                    rows += "<td class=\"null\">nil</td>"
                }
            }
            rows += "</tr>"
        }
        body += "<p class=\"muted\" id=\"total\" data-total=\"\(page.total)\">\(page.total) row\(page.total == 1 ? "" : "s")\(page.total > 0 ? ", showing \(Self.sum(query.offset, 1))–\(Self.sum(query.offset, page.rows.count))" : "")</p>"
        body += "<table id=\"rows\"><thead><tr>\(head)</tr></thead><tbody>\(rows)</tbody></table>"
        body += pager(query: query, total: page.total)
        return StudioLayout.page(title: entity.name, browser: browser, section: .rows, entity: entity.name, body: body)
    }

    /// A link to the row a to-one points at, named by its label where it has one ("Food", with
    /// "Category 1" as its title), else by its entity and key.
    static func reference(_ relationship: StoreCatalog.Relationship, key: Int64, labels: [String: [Int64: String]]) -> String {
        let name = "\(relationship.destination) \(key)"
        let target = HTML.url(["entity", relationship.destination, String(key)])
        guard let label = labels[relationship.destination]?[key] else { return HTML.link(target, name) }
        return HTML.link(target, label, attributes: "title=\"\(HTML.escape(name))\"")
    }

    /// A value in a table cell, by its kind.
    static func cell(_ value: BrowsedValue) -> String {
        switch value {
        case .null: return "<td class=\"null\">nil</td>"
        case .integer, .real, .decimal: return "<td class=\"number\">\(HTML.escape(value.display))</td>"
        case .json(let text, let truncated): return "<td><code>\(HTML.escape(text))\(truncated ? "…" : "")</code></td>"
        case .bytes: return "<td class=\"muted\">\(HTML.escape(value.display))</td>"
        case .date: return "<td class=\"date\">\(HTML.escape(value.display))</td>"
        default: return "<td>\(HTML.escape(value.display))</td>"
        }
    }

    /// The query as link parameters, with `changes` applied.
    static func parameters(_ query: BrowseQuery, sort: String?? = nil, ascending: Bool? = nil, offset: Int? = nil) -> [(String, String)] {
        var items: [(String, String)] = []
        if let sort = sort ?? query.sort { items.append(("sort", sort)) }
        if !(ascending ?? query.ascending) { items.append(("order", "desc")) }
        for condition in query.conditions {
            items += [("fp", condition.property), ("fo", condition.op.rawValue), ("fv", condition.value)]
        }
        if let related = query.related {
            items += [("owner", related.owner), ("ownerKey", String(related.key)), ("via", related.relationship)]
        }
        let start = offset ?? query.offset
        if start > 0 { items.append(("offset", String(start))) }
        if query.limit != pageSize { items.append(("limit", String(query.limit))) }
        return items
    }

    private static func sortLink(_ title: String, property: String?, query: BrowseQuery) -> String {
        let current = query.sort == property
        let ascending = current ? !query.ascending : true
        let arrow = current ? (query.ascending ? " ▲" : " ▼") : ""
        return HTML.link(HTML.url(["entity", query.entity], parameters(query, sort: .some(property), ascending: ascending, offset: 0)), title + arrow, attributes: "data-sort=\"\(HTML.escape(property ?? "key"))\"")
    }

    private static func pager(query: BrowseQuery, total: Int) -> String {
        var links: [String] = []
        if query.offset > 0 {
            links.append(HTML.link(HTML.url(["entity", query.entity], parameters(query, offset: max(0, query.offset - query.limit))), "← previous", attributes: "rel=\"prev\""))
        }
        if Self.sum(query.offset, query.limit) < total {
            links.append(HTML.link(HTML.url(["entity", query.entity], parameters(query, offset: Self.sum(query.offset, query.limit))), "next →", attributes: "rel=\"next\""))
        }
        return "<p class=\"pager\">\(links.joined(separator: " "))</p>"
    }

    /// The conditions form: the current conditions, and one more to add.
    private static func filterForm(entity: StoreCatalog.Entity, attributes: [StoreCatalog.Attribute], relationships: [StoreCatalog.Relationship], query: BrowseQuery) -> String {
        let properties = attributes.filter { $0.kind != .data }.map(\.name) + attributes.filter { $0.kind == .data }.map(\.name)
            + relationships.filter { !$0.isToMany }.map(\.name)
        func row(_ condition: BrowseCondition?) -> String {
            let options = properties.map { name in
                "<option\(condition?.property == name ? " selected" : "")>\(HTML.escape(name))</option>"
            }.joined()
            let operators = BrowseCondition.Operator.allCases.map { op in
                "<option value=\"\(op.rawValue)\"\(condition?.op == op ? " selected" : "")>\(label(op))</option>"
            }.joined()
            return "<span class=\"condition\"><select name=\"fp\" aria-label=\"property\">\(options)</select><select name=\"fo\" aria-label=\"condition\">\(operators)</select><input name=\"fv\" aria-label=\"value\" value=\"\(HTML.escape(condition?.value ?? ""))\"></span>"
        }
        var hidden = ""
        if let sort = query.sort { hidden += "<input type=\"hidden\" name=\"sort\" value=\"\(HTML.escape(sort))\">" }
        if !query.ascending { hidden += "<input type=\"hidden\" name=\"order\" value=\"desc\">" }
        if query.limit != pageSize { hidden += "<input type=\"hidden\" name=\"limit\" value=\"\(query.limit)\">" }
        if let related = query.related {
            hidden += "<input type=\"hidden\" name=\"owner\" value=\"\(HTML.escape(related.owner))\"><input type=\"hidden\" name=\"ownerKey\" value=\"\(related.key)\"><input type=\"hidden\" name=\"via\" value=\"\(HTML.escape(related.relationship))\">"
        }
        let current = query.conditions.map { row($0) }.joined()
        return "<form class=\"filters\" method=\"get\" action=\"\(HTML.escape(HTML.url(["entity", entity.name])))\">\(hidden)\(current)\(row(nil))<button type=\"submit\">Filter</button> "
            + HTML.link(HTML.url(["entity", entity.name]), "clear") + "</form>"
    }

    private static func label(_ op: BrowseCondition.Operator) -> String {
        switch op {
        case .equals: return "="
        case .contains: return "contains"
        case .atLeast: return "≥"
        case .atMost: return "≤"
        case .isNil: return "is nil"
        case .isNotNil: return "is not nil"
        }
    }

    /// `a + b`, or `Int.max` where that does not fit: offsets come from URLs.
    static func sum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
#endif
