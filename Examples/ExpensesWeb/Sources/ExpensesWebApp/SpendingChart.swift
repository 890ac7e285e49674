#if Studio
import ExpensesCore
import Foundation

/// The spending chart drawn on the server as SVG (no script): a bar per month, stacked by
/// category, each segment's height proportional to its amount, and a legend. The numbers come
/// from grouped sums (`ExpenseViewModel.monthlySpending`), never from loading expenses.
struct SpendingChart {
    static let width = 1080.0, height = 220.0
    /// Room under the bars for the month labels, and above the tallest bar.
    static let labelSpace = 22.0, topSpace = 8.0
    /// Fixed colours by category position: a category's stored colour is user input and does
    /// not go into the SVG.
    static let palette = ["#2f6fdd", "#e07a1f", "#2e9e5b", "#c53030", "#805ad5", "#d69e2e", "#319795", "#b83280", "#718096"]

    let months: [MonthSpending]

    /// The categories in the chart, by name, "Uncategorised" last.
    var categories: [String] {
        let names = Set(months.flatMap(\.totals.keys))
        return names.filter { $0 != CategoryTotal.uncategorised }.sorted() + (names.contains(CategoryTotal.uncategorised) ? [CategoryTotal.uncategorised] : [])
    }

    /// What the template draws.
    var values: [String: Any] {
        let categories = self.categories
        let colour = { (name: String) in Self.palette[(categories.firstIndex(of: name) ?? 0) % Self.palette.count] }
        let tallest = months.map(\.total).max() ?? 0
        let plot = Self.height - Self.labelSpace - Self.topSpace
        let scale = tallest > 0 ? plot / tallest : 0
        let slot = Self.width / Double(max(months.count, 1))
        let barWidth = slot * 0.6
        let bars = months.enumerated().map { position, month -> [String: Any] in
            let x = Double(position) * slot + (slot - barWidth) / 2
            var top = Self.height - Self.labelSpace
            var segments: [[String: Any]] = []
            for name in categories {
                guard let amount = month.totals[name], amount > 0 else { continue }
                let size = amount * scale
                top -= size
                segments.append([
                    "category": name, "amount": WebController.money(amount), "fill": colour(name),
                    "x": Self.number(x), "y": Self.number(top), "width": Self.number(barWidth), "height": Self.number(size),
                ])
            }
            return [
                "month": month.month, "label": Self.monthLabel(month.month), "total": WebController.money(month.total),
                "labelX": Self.number(x + barWidth / 2), "labelY": Self.number(Self.height - 6), "segments": segments,
            ]
        }
        return [
            "width": Self.number(Self.width), "height": Self.number(Self.height),
            "bars": bars, "legend": categories.map { ["name": $0, "fill": colour($0)] },
            "empty": tallest == 0,
        ]
    }

    /// `2026-11` as `Nov`.
    static func monthLabel(_ month: String) -> String {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let number = Int(month.suffix(2)), (1...12).contains(number) else { return month }
        return names[number - 1]
    }

    static func number(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
#endif
