#if Studio
import Foundation
import OpenSwiftData

/// `/history`: the newest transactions, who made them and what each changed, with links to the
/// rows that still exist.
enum HistoryPage {
    static let limit = 100

    static func render(browser: StoreBrowser, history: [BrowsedTransaction]) -> String {
        var body = "<h1>History</h1>"
        body += history.isEmpty ? "<p class=\"muted\">The store keeps no history transactions.</p>"
            : "<p class=\"muted\">\(history.count == 1 ? "The one transaction kept" : "The newest \(history.count) transactions, newest first").</p>" + table(history, highlight: nil)
        return StudioLayout.page(title: "History", browser: browser, section: .history, body: body)
    }

    /// `highlight`: the row (entity and key) whose changes are marked.
    static func table(_ history: [BrowsedTransaction], highlight: (entity: String, key: Int64)?) -> String {
        var rows = ""
        for transaction in history {
            let who = [transaction.author, transaction.bundleIdentifier.isEmpty ? nil : transaction.bundleIdentifier,
                       transaction.processIdentifier.isEmpty ? nil : "(\(transaction.processIdentifier))"].compactMap { $0 }.joined(separator: " ")
            let changes = transaction.changes.map { change -> String in
                let keys = change.keys.prefix(20).map { key -> String in
                    let text = String(key)
                    let shown = change.kind == .delete ? HTML.escape(text) : HTML.link(HTML.url(["entity", change.entity, text]), text)
                    return key == highlight?.key && change.entity == highlight?.entity ? "<mark>\(shown)</mark>" : shown
                }.joined(separator: ", ") + (change.keys.count > 20 ? " … (\(change.keys.count) in all)" : "")
                let properties = change.properties.isEmpty ? "" : " <span class=\"muted\">(\(HTML.escape(change.properties.joined(separator: ", "))))</span>"
                return "<div class=\"change\" data-kind=\"\(change.kind.rawValue)\">\(change.kind.rawValue) \(HTML.escape(change.entity)) \(keys)\(properties)</div>"
            }.joined()
            rows += "<tr data-transaction=\"\(transaction.number)\"><td class=\"number\">#\(transaction.number)</td><td class=\"date\">\(HTML.escape(BrowsedValue.date(transaction.timestamp).display))</td><td>\(HTML.escape(who))</td><td>\(changes)</td></tr>"
        }
        return "<table id=\"history\"><thead><tr><th>#</th><th>when (UTC)</th><th>author</th><th>changes</th></tr></thead><tbody>\(rows)</tbody></table>"
    }
}
#endif
