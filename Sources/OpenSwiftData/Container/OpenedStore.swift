import Foundation

/// A store a built-in configuration opened, handed back to the container.
package struct OpenedStore {
    let store: any RowStore
}
