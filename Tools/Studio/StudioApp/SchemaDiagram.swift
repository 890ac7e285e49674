#if Studio
import Foundation
import OpenSwiftData

/// The schema drawn as SVG on the server: a box per entity (attributes with their types,
/// relationships with cardinality, inverse and delete rule, unique constraints, indexes), a line
/// per relationship, a dashed line to each superentity. Each box links to its entity's rows.
enum SchemaDiagram {
    private static let lineHeight = 17
    private static let gap = 140

    private struct Box {
        let entity: StoreCatalog.Entity
        let boxWidth: Int
        let lines: [(text: String, className: String)]
        var x = 0
        var y = 0
        var height: Int { 28 + lines.count * lineHeight + 10 }
        var center: (Int, Int) { (x + boxWidth / 2, y + height / 2) }
    }

    static func svg(_ catalog: StoreCatalog) -> String {
        // One width for every box, wide enough for the longest line (about 6.5 points a character).
        let longest = catalog.entities.flatMap { [$0.name] + lines($0).map(\.text) }.map(\.count).max() ?? 20
        let boxWidth = min(560, max(200, longest * 13 / 2 + 24))
        var boxes = catalog.entities.map { entity in Box(entity: entity, boxWidth: boxWidth, lines: lines(entity)) }
        let columns = max(1, min(3, Int(Double(boxes.count).squareRoot().rounded(.up))))
        var y = gap / 2
        var width = 0
        for rowStart in stride(from: 0, to: boxes.count, by: columns) {
            let row = rowStart..<min(rowStart + columns, boxes.count)
            for (column, index) in row.enumerated() {
                boxes[index].x = gap / 2 + column * (boxWidth + gap)
                boxes[index].y = y
                width = max(width, boxes[index].x + boxWidth + gap / 2)
            }
            y += (row.map { boxes[$0].height }.max() ?? 0) + gap
        }
        let height = y - gap / 2
        let byName = Dictionary(boxes.map { ($0.entity.name, $0) }, uniquingKeysWith: { first, _ in first })
        var edges: [String] = []
        for box in boxes {
            if let parent = box.entity.superentity.flatMap({ byName[$0] }) {
                edges.append(line(from: box, to: parent, dashed: true, label: "inherits", marker: "inherits", data: "\(box.entity.name):\(parent.entity.name)"))
            }
            for relationship in box.entity.relationships {
                guard let destination = byName[relationship.destination], destination.entity.name != box.entity.name else { continue }
                // One line per pair of inverses, drawn from the side that sorts first.
                if let inverse = relationship.inverse, (relationship.destination, inverse) < (box.entity.name, relationship.name) { continue }
                let label = relationship.name + (relationship.inverse.map { " ⇄ " + $0 } ?? "")
                edges.append(line(
                    from: box, to: destination, dashed: false, label: label, marker: "arrow", data: "\(box.entity.name).\(relationship.name)",
                    inverse: relationship.inverse.map { "\(destination.entity.name).\($0)" }))
            }
        }
        let drawn = boxes.map { box -> String in
            var text = ""
            for (index, line) in box.lines.enumerated() {
                let baseline = box.y + 28 + (index + 1) * lineHeight
                text += "<text x=\"\(box.x + 10)\" y=\"\(baseline)\" class=\"\(line.className)\">\(HTML.escape(line.text))</text>"
            }
            return """
            <a href="\(HTML.escape(HTML.url(["entity", box.entity.name])))" data-entity="\(HTML.escape(box.entity.name))">\
            <rect x="\(box.x)" y="\(box.y)" width="\(box.boxWidth)" height="\(box.height)" rx="8" fill="#fff" stroke="#8e8e93"/>\
            <rect x="\(box.x)" y="\(box.y)" width="\(box.boxWidth)" height="28" rx="8" fill="#e8f0fe" stroke="#8e8e93"/>\
            <text x="\(box.x + 10)" y="\(box.y + 19)" class="title">\(HTML.escape(box.entity.name))</text>\(text)</a>
            """
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" role="img" aria-label="Schema diagram">\
        <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#0a64d8"/></marker>\
        <marker id="inherits" viewBox="0 0 12 12" refX="12" refY="6" markerWidth="12" markerHeight="12" orient="auto"><path d="M0,0 L12,6 L0,12 z" fill="#fff" stroke="#6e6e73"/></marker></defs>\
        \(edges.joined())\(drawn.joined())</svg>
        """
    }

    /// The lines in an entity's box.
    private static func lines(_ entity: StoreCatalog.Entity) -> [(text: String, className: String)] {
        var lines: [(String, String)] = []
        if let parent = entity.superentity { lines.append(("inherits from \(parent)", "muted")) }
        for attribute in entity.attributes {
            lines.append(("\(attribute.name): \(attribute.typeName)\(attribute.isOptional ? "?" : "")", "attribute"))
        }
        for relationship in entity.relationships {
            var text = "→ \(relationship.name): \(relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination)"
            if let inverse = relationship.inverse { text += " ⇄ \(inverse)" }
            if let rule = relationship.deleteRule { text += " · \(rule)" }
            lines.append((text, "relationship"))
        }
        for group in entity.uniqueness { lines.append(("unique (\(group.joined(separator: ", ")))", "muted")) }
        for group in entity.indices { lines.append(("index (\(group.joined(separator: ", ")))", "muted")) }
        return lines
    }

    /// Where the line from `box`'s centre towards `other`'s leaves `box`'s border.
    private static func border(_ box: Box, towards other: Box) -> (Int, Int) {
        let (x, y) = box.center
        let dx = Double(other.center.0 - x)
        let dy = Double(other.center.1 - y)
        guard dx != 0 || dy != 0 else { return (x, y) }
        let scale = min(dx == 0 ? .infinity : Double(box.boxWidth / 2) / abs(dx), dy == 0 ? .infinity : Double(box.height / 2) / abs(dy))
        return (x + Int(dx * scale), y + Int(dy * scale))
    }

    /// `data` names the relationship (`Entity.name`, or `Sub:Super` for inheritance) and
    /// `inverse` its inverse, which the same line draws.
    private static func line(from source: Box, to target: Box, dashed: Bool, label: String, marker: String, data: String, inverse: String? = nil) -> String {
        let from = border(source, towards: target)
        let to = border(target, towards: source)
        let middle = ((from.0 + to.0) / 2, (from.1 + to.1) / 2)
        return """
        <g data-relationship="\(HTML.escape(data))"\(inverse.map { " data-inverse=\"\(HTML.escape($0))\"" } ?? "")><line x1="\(from.0)" y1="\(from.1)" x2="\(to.0)" y2="\(to.1)" stroke="\(dashed ? "#6e6e73" : "#0a64d8")" stroke-width="1.5"\(dashed ? " stroke-dasharray=\"6 4\"" : "") marker-end="url(#\(marker))"/>\
        <text x="\(middle.0)" y="\(middle.1 - 4)" text-anchor="middle" fill="#0a64d8" paint-order="stroke" stroke="#fff" stroke-width="4">\(HTML.escape(label))</text></g>
        """
    }
}
#endif
