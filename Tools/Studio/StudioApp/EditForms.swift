#if Studio
import Foundation
import OpenSwiftData

/// The forms on a row's page when the studio runs with `--allow-edits`: change one value, or
/// delete the row. Each posts to the studio, which saves it as one transaction with author
/// `studio`.
enum EditForms {
    static func render(entity: StoreCatalog.Entity, row: BrowsedRow, attributes: [StoreCatalog.Attribute]) -> String {
        let editable = attributes.filter { $0.kind != .data && $0.kind != .other }
        let options = editable.map { "<option>\(HTML.escape($0.name))</option>" }.joined()
        let base = HTML.url(["entity", row.entity, String(row.key)])
        var forms = "<h2>Edit</h2>"
        if !editable.isEmpty {
            forms += """
            <form class="filters" id="edit" method="post" action="\(HTML.escape(base + "/edit"))">\
            <select name="property" aria-label="property">\(options)</select>\
            <input name="value" aria-label="new value" placeholder="new value">\
            <label><input type="checkbox" name="nil" value="1"> nil</label>\
            <button type="submit">Save</button></form>
            """
        }
        forms += """
        <form id="delete" method="post" action="\(HTML.escape(base + "/delete"))" onsubmit="return confirm('Delete this row? Its delete rules apply.')">\
        <button type="submit">Delete this row</button></form>
        """
        return forms
    }
}
#endif
