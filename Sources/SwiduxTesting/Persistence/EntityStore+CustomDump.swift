import CustomDump

/// Failure diffs show an `EntityStore` as its entities, in order, without its change log.
extension EntityStore: CustomDumpReflectable {
    /// The entities as a collection: `[Todo(id: 1, title: "Milk"), …]` in a diff.
    public var customDumpMirror: Mirror {
        Mirror(self, unlabeledChildren: values, displayStyle: .collection)
    }
}
