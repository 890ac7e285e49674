#if Studio
import Foundation
import OpenSwiftData

/// `/statistics`: rows per entity as a bar chart, the store's size, each table's and index's
/// size, and the largest values.
enum StatisticsPage {
    static func render(browser: StoreBrowser, statistics: StoreStatistics) -> String {
        var body = "<h1>Statistics</h1>"
        if let total = statistics.totalBytes { body += "<p id=\"size\">Store size: <strong>\(bytes(total))</strong></p>" }
        body += "<h2>Rows per entity</h2>" + chart(statistics.entities.map { ($0.entity, Int64($0.rows), String($0.rows)) }, id: "rows-chart")
        if !statistics.relations.isEmpty {
            body += "<h2>Tables and indexes</h2>" + chart(statistics.relations.prefix(20).map { ($0.name, $0.bytes, bytes($0.bytes)) }, id: "size-chart")
            let rows = statistics.relations.map { relation in
                "<tr><td>\(HTML.escape(relation.name))</td><td>\(relation.isIndex ? "index on \(HTML.escape(relation.table))" : "table")</td><td class=\"number\">\(bytes(relation.bytes))</td></tr>"
            }.joined()
            body += "<table><thead><tr><th>name</th><th>kind</th><th>size</th></tr></thead><tbody>\(rows)</tbody></table>"
        }
        if !statistics.largestValues.isEmpty {
            let rows = statistics.largestValues.prefix(20).map { value in
                "<tr><td>" + HTML.link(HTML.url(["entity", value.entity], [("sort", value.property), ("order", "desc")]), "\(value.entity).\(value.property)") + "</td><td class=\"number\">\(value.length)</td></tr>"
            }.joined()
            body += "<h2>Largest values</h2><p class=\"muted\">Characters of text, bytes of data.</p><table><thead><tr><th>property</th><th>largest</th></tr></thead><tbody>\(rows)</tbody></table>"
        }
        return StudioLayout.page(title: "Statistics", browser: browser, section: .statistics, body: body)
    }

    /// A horizontal bar chart, bars scaled to the largest value.
    private static func chart(_ bars: [(label: String, value: Int64, text: String)], id: String) -> String {
        let largest = max(bars.map(\.value).max() ?? 1, 1)
        let rowHeight = 22
        let width = 640
        let labelWidth = 200
        var drawn = ""
        for (index, bar) in bars.enumerated() {
            let y = index * rowHeight
            let length = Int(Double(width - labelWidth - 90) * Double(bar.value) / Double(largest))
            drawn += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 15)\" text-anchor=\"end\">\(HTML.escape(bar.label))</text>"
                + "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(max(length, 1))\" height=\"\(rowHeight - 8)\" fill=\"#0a64d8\" rx=\"3\"/>"
                + "<text x=\"\(labelWidth + max(length, 1) + 6)\" y=\"\(y + 15)\">\(HTML.escape(bar.text))</text>"
        }
        return "<svg id=\"\(id)\" width=\"\(width)\" height=\"\(max(bars.count, 1) * rowHeight)\" role=\"img\">\(drawn)</svg>"
    }

    private static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
#endif
