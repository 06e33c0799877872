import CustomDump

/// Failure diffs show an `EntityStore` as its entities, in order, without its change log.
/// Test failure diffs that show an entity store as its entities, in order.
extension EntityStore: CustomDumpReflectable {
    /// The entities as a collection: `[Todo(id: 1, title: "Milk"), …]` in a diff.
    public var customDumpMirror: Mirror {
        Mirror(self, unlabeledChildren: values, displayStyle: .collection)
    }
}
