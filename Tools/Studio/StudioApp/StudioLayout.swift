#if Studio
import Foundation
import OpenSwiftData
import OpenSwiftDataSync

/// The frame every page shares: the store's name and mode, navigation, and the script that
/// refreshes the page's `<main>` when the store changes (``LiveChanges``).
enum StudioLayout {
    enum Section: String {
        case schema, rows, history, statistics
    }

    static func page(title: String, browser: StoreBrowser, section: Section, entity: String? = nil, body: String) -> String {
        func item(_ candidate: StoreCatalog.Entity) -> String {
            let current = candidate.name == entity ? "aria-current=\"page\"" : ""
            return "<li>" + HTML.link(HTML.url(["entity", candidate.name]), candidate.name, attributes: current) + "</li>"
        }
        // Sync's own bookkeeping apart from the app's entities.
        let entities = browser.catalog.entities.filter { !syncBookkeeping.contains($0.name) }.map(item).joined()
        let bookkeeping = browser.catalog.entities.filter { syncBookkeeping.contains($0.name) }.map(item).joined()
        func tab(_ target: Section, _ label: String, _ path: String) -> String {
            HTML.link(path, label, attributes: target == section ? "aria-current=\"page\"" : "")
        }
        let mode = browser.allowsEdits ? "edits allowed" : "read-only"
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title)) · OpenSwiftData Studio</title>
        <style>\(style)</style></head>
        <body>
        <header><strong>OpenSwiftData Studio</strong> <span class="place">\(HTML.escape(browser.place))</span>
        <span class="badge">\(HTML.escape(browser.catalog.layout.rawValue))\(browser.catalog.version.map { " " + HTML.escape($0) } ?? "")</span>
        <span class="badge \(browser.allowsEdits ? "edits" : "")">\(mode)</span>
        <span id="live" class="live" title="Refreshes when another process or server saves">live</span></header>
        <nav><ul class="sections"><li>\(tab(.schema, "Schema", "/schema"))</li><li>\(tab(.history, "History", "/history"))</li><li>\(tab(.statistics, "Statistics", "/statistics"))</li></ul>
        <h2>Entities</h2><ul>\(entities)</ul>\(bookkeeping.isEmpty ? "" : "<h2 id=\"sync-bookkeeping\">Sync bookkeeping</h2><ul>\(bookkeeping)</ul>")</nav>
        <main>\(body)</main>
        <script>\(script)</script>
        </body></html>
        """
    }

    /// The entities sync keeps in an app's store for itself (``SyncSchema``), listed apart.
    static let syncBookkeeping = Set(Schema(SyncSchema.models + SyncSchema.sharingModels).entities.map(\.name))

    /// Refreshes `<main>` in place on each `changed` event: a save elsewhere shows up without a reload.
    private static let script = """
    const live = document.getElementById('live');
    const events = new EventSource('/events');
    events.addEventListener('changed', async () => {
      const response = await fetch(location.href, {headers: {'Accept': 'text/html'}});
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), 'text/html');
      const fresh = page.querySelector('main');
      if (fresh) document.querySelector('main').replaceWith(fresh);
      live.textContent = 'updated ' + new Date().toLocaleTimeString();
      live.dataset.updates = String(Number(live.dataset.updates || '0') + 1);
    });
    events.addEventListener('open', () => live.classList.add('on'));
    """

    private static let style = """
    body{margin:0;font:14px/1.45 -apple-system,system-ui,sans-serif;color:#1d1d1f;display:grid;grid-template-columns:200px 1fr;grid-template-rows:auto 1fr}
    header{grid-column:1/3;padding:10px 16px;background:#1d1d1f;color:#fff;display:flex;gap:12px;align-items:center}
    header .place{opacity:.75;font-family:ui-monospace,monospace;font-size:12px}
    .badge{background:#3a3a3c;border-radius:10px;padding:1px 8px;font-size:12px}.badge.edits{background:#b3261e}
    .live{margin-left:auto;font-size:12px;opacity:.6}.live.on{opacity:1}.live.on::before{content:'● ';color:#34c759}
    nav{padding:12px 16px;border-right:1px solid #ddd;background:#f5f5f7}nav ul{list-style:none;padding:0;margin:0}nav li{margin:2px 0}
    nav h2{font-size:12px;text-transform:uppercase;color:#6e6e73;margin:16px 0 6px}
    main{padding:16px 20px;overflow:auto}a{color:#0a64d8;text-decoration:none}a:hover{text-decoration:underline}
    a[aria-current]{font-weight:600;color:#1d1d1f}
    table{border-collapse:collapse;margin:8px 0}th,td{border-bottom:1px solid #e5e5ea;padding:4px 10px;text-align:left;vertical-align:top}
    th{background:#f5f5f7;font-weight:600;white-space:nowrap}td.null{color:#aeaeb2;font-style:italic}td.number{text-align:right;font-variant-numeric:tabular-nums}
    .type{color:#6e6e73;font-weight:normal;font-size:12px}.muted{color:#6e6e73}.error{background:#fdecea;border:1px solid #f5c2c0;padding:8px 12px;border-radius:6px}
    form.filters{display:flex;gap:6px;align-items:center;flex-wrap:wrap;margin:8px 0}input,select,button{font:inherit;padding:3px 6px}
    .pager{display:flex;gap:12px;align-items:center}.change{font-family:ui-monospace,monospace;font-size:12px}
    svg text{font:12px -apple-system,system-ui,sans-serif}svg .title{font-weight:600;font-size:13px}#diagram svg{max-width:100%;height:auto}
    td.date{white-space:nowrap}
    """
}
#endif
