// SwiftUI's app and scene protocols (see Core.swift).

@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
    @MainActor @preconcurrency init()
}

extension App {
    @MainActor @preconcurrency
    public static func main() {}
}

@MainActor @preconcurrency
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Body { get }
}

extension Never: Scene {}

/// A scene with no body of its own.
@MainActor @preconcurrency
public protocol _ShimPrimitiveScene: Scene where Body == Never {}

extension _ShimPrimitiveScene {
    public var body: Never { fatalError("SwiftUIShim renders nothing") }
}

@resultBuilder
public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: Scene>(_ content: repeat each Content) -> _TupleScene<(repeat each Content)> {
        _TupleScene()
    }
    public static func buildExpression<Content: Scene>(_ content: Content) -> Content { content }
}

public struct _TupleScene<T>: _ShimPrimitiveScene { nonisolated init() {} }

public struct WindowGroup<Content: View>: _ShimPrimitiveScene {
    public init(@ViewBuilder content: () -> Content) {}
    public init(_ title: LocalizedStringKey, @ViewBuilder content: () -> Content) {}
}

extension Scene {
    public nonisolated func onChange<V: Equatable>(
        of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some Scene { _TupleScene<V>() }
}
