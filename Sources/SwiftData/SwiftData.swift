// The `SwiftData` compatibility module: code written for Apple's SwiftData — `import SwiftData`,
// names qualified as `SwiftData.ModelContainer`, `#if canImport(SwiftData)` — compiles unchanged
// where Apple's framework does not exist. Everything comes from OpenSwiftData, re-exported; the
// macros' expansions name `OpenSwiftData.` and resolve through this re-export.
//
// Depend on this product only off Apple platforms (see the README), so that on Apple platforms
// `import SwiftData` keeps meaning Apple's framework:
//
//     .product(name: "SwiftData", package: "OpenSwiftData",
//              condition: .when(platforms: [.linux, .windows, .android, .openbsd, .wasi]))
@_exported import OpenSwiftData
