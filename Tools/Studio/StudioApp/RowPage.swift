#if Studio
import Foundation
import OpenSwiftData

/// `/entity/NAME/KEY`: one row whole — every value by its kind, each to-one relationship as a
/// link to its row, each to-many as a link to the rows it leads to (so a relationship can be
/// followed in both directions) — and the history transactions that changed it.
enum RowPage {
    static func render(browser: StoreBrowser, entity: StoreCatalog.Entity, row: BrowsedRow, history: [BrowsedTransaction], labels: [String: [Int64: String]] = [:]) -> String {
        var body = "<h1>\(HTML.escape(row.entity)) \(row.key)</h1>"
        if row.entity != entity.name { body += "<p class=\"muted\">a row of \(HTML.escape(row.entity)), which inherits from \(HTML.escape(entity.name))</p>" }
        var rows = ""
        for attribute in entity.rowAttributes {
            rows += "<tr data-property=\"\(HTML.escape(attribute.name))\"><th>\(HTML.escape(attribute.name)) <span class=\"type\">\(HTML.escape(attribute.typeName))\(attribute.isOptional ? "?" : "")</span></th>"
                + RowsPage.cell(row.values[attribute.name] ?? .null) + "</tr>"
        }
        for relationship in entity.rowRelationships {
            var detail = relationship.isToMany ? "to-many" : "to-one"
            if let inverse = relationship.inverse { detail += ", inverse \(inverse)" }
            if let rule = relationship.deleteRule { detail += ", \(rule)" }
            let value: String
            if relationship.isToMany {
                value = "<td>" + HTML.link(HTML.url(["entity", relationship.destination], [("owner", row.entity), ("ownerKey", String(row.key)), ("via", relationship.name)]), "\(relationship.destination) rows →") + "</td>"
            } else if let key = row.references[relationship.name] {
                value = "<td>" + RowsPage.reference(relationship, key: key, labels: labels) + "</td>"
            } else if relationship.isKeptInRow {
                value = "<td class=\"null\">nil</td>"
            } else {
                // A to-one whose key the other side keeps: the rows it leads to.
                value = "<td>" + HTML.link(HTML.url(["entity", relationship.destination], [("owner", row.entity), ("ownerKey", String(row.key)), ("via", relationship.name)]), "\(relationship.destination) →") + "</td>"
            }
            rows += "<tr data-relationship=\"\(HTML.escape(relationship.name))\"><th>\(HTML.escape(relationship.name)) <span class=\"type\">\(HTML.escape(detail))</span></th>\(value)</tr>"
        }
        body += "<table id=\"row\">\(rows)</table>"
        if browser.allowsEdits {
            body += EditForms.render(entity: entity, row: row, attributes: entity.rowAttributes)
        }
        body += "<h2>History of this row</h2>"
        body += history.isEmpty ? "<p class=\"muted\">No transaction among the newest \(StoreBrowser.historyWindow) changed it (or the store keeps no history).</p>" : HistoryPage.table(history, highlight: (row.entity, row.key))
        return StudioLayout.page(title: "\(row.entity) \(row.key)", browser: browser, section: .rows, entity: entity.name, body: body)
    }

    static func missing(browser: StoreBrowser, entity: StoreCatalog.Entity, key: Int64) -> String {
        StudioLayout.page(title: entity.name, browser: browser, section: .rows, entity: entity.name,
                          body: "<h1>\(HTML.escape(entity.name)) \(key)</h1><p class=\"error\" role=\"alert\">There is no \(HTML.escape(entity.name)) with key \(key) (it may have been deleted).</p>")
    }
}
#endif
