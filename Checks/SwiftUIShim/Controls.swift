// SwiftUI's views and modifiers (see Core.swift).

public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
}

public struct Text: _ShimPrimitiveView, Equatable, Sendable {
    public nonisolated init(_ key: LocalizedStringKey) {}
    @_disfavoredOverload public nonisolated init<S: StringProtocol>(_ content: S) {}
    public nonisolated init(verbatim content: String) {}
}

public struct Image: _ShimPrimitiveView, Equatable, Sendable {
    public nonisolated init(systemName: String) {}
    public nonisolated init(_ name: String) {}
}

public struct Group<Content: View>: _ShimPrimitiveView {
    public init(@ViewBuilder content: () -> Content) {}
}

public struct ProgressView: _ShimPrimitiveView {
    public nonisolated init() {}
    public nonisolated init(_ titleKey: LocalizedStringKey) {}
    @_disfavoredOverload public nonisolated init<S: StringProtocol>(_ title: S) {}
}

/// iOS 17 / macOS 14 (generic over its label, description and actions in the SDK).
public struct ContentUnavailableView: _ShimPrimitiveView {
    public nonisolated init(_ title: LocalizedStringKey, systemImage name: String, description: Text? = nil) {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, systemImage name: String, description: Text? = nil) {}
}

public struct List<SelectionValue: Hashable, Content: View>: _ShimPrimitiveView {
    public init(@ViewBuilder content: () -> Content) where SelectionValue == Never {}
}

public struct Section<Content: View>: _ShimPrimitiveView {
    public init(_ titleKey: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
}

@MainActor @preconcurrency
public protocol DynamicViewContent: View {}

extension DynamicViewContent {
    public nonisolated func onDelete(perform action: ((IndexSet) -> Void)?) -> some DynamicViewContent { self }
    public nonisolated func onMove(perform action: ((IndexSet, Int) -> Void)?) -> some DynamicViewContent { self }
}

public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content: View>: _ShimPrimitiveView, DynamicViewContent {
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content)
    where Data.Element: Identifiable, ID == Data.Element.ID {}
}

public struct Button<Label: View>: _ShimPrimitiveView {
    @preconcurrency public nonisolated init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    @preconcurrency public nonisolated init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) where Label == Text {}
    @_disfavoredOverload @preconcurrency
    public nonisolated init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) where Label == Text {}
}

public struct Label<Title: View, Icon: View>: _ShimPrimitiveView {
    public nonisolated init(_ titleKey: LocalizedStringKey, systemImage name: String) where Title == Text, Icon == Image {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, systemImage name: String) where Title == Text, Icon == Image {}
    public nonisolated init(@ViewBuilder title: () -> Title, @ViewBuilder icon: () -> Icon) {}
}

public struct TextField<Label: View>: _ShimPrimitiveView {
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>) where Label == Text {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, text: Binding<String>) where Label == Text {}
}

public struct Toggle<Label: View>: _ShimPrimitiveView {
    public nonisolated init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>) where Label == Text {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, isOn: Binding<Bool>) where Label == Text {}
    public nonisolated init(isOn: Binding<Bool>, @ViewBuilder label: () -> Label) {}
}

public struct NavigationStack<Root: View>: _ShimPrimitiveView {
    public init(@ViewBuilder root: () -> Root) {}
}

public struct NavigationLink<Label: View, Destination: View>: _ShimPrimitiveView {
    public nonisolated init(_ titleKey: LocalizedStringKey, @ViewBuilder destination: () -> Destination) where Label == Text {}
    @_disfavoredOverload
    public nonisolated init<S: StringProtocol>(_ title: S, @ViewBuilder destination: () -> Destination) where Label == Text {}
}

public struct SubmitTriggers: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let text = SubmitTriggers(rawValue: 1)
}

extension View {
    public nonisolated func onSubmit(of triggers: SubmitTriggers = .text, _ action: @escaping () -> Void) -> some View {
        modifier(EmptyModifier())
    }
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View { modifier(EmptyModifier()) }
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping () -> Void
    ) -> some View { modifier(EmptyModifier()) }
    public nonisolated func task(
        priority: TaskPriority = .userInitiated, @_inheritActorContext _ action: @escaping @isolated(any) @Sendable () async -> Void
    ) -> some View { modifier(EmptyModifier()) }
    public nonisolated func refreshable(action: @escaping @Sendable () async -> Void) -> some View {
        modifier(EmptyModifier())
    }
    public nonisolated func navigationTitle(_ titleKey: LocalizedStringKey) -> some View { modifier(EmptyModifier()) }
    @_disfavoredOverload
    public nonisolated func navigationTitle<S: StringProtocol>(_ title: S) -> some View { modifier(EmptyModifier()) }
    public nonisolated func toolbar<Content: View>(@ViewBuilder content: () -> Content) -> some View {
        modifier(EmptyModifier())
    }
}

public struct EmptyModifier: ViewModifier {
    public nonisolated init() {}
    public func body(content: Content) -> Content { content }
}
