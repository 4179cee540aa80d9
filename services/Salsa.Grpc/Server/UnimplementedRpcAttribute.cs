namespace Salsa.Grpc;

/// <summary>
/// Declares that a service class leaves a method of its protobuf service unimplemented on
/// purpose: calls get UNIMPLEMENTED instead of the binder failing at startup.
/// </summary>
[AttributeUsage(AttributeTargets.Class, AllowMultiple = true, Inherited = true)]
public sealed class UnimplementedRpcAttribute(string methodName) : Attribute
{
    /// <summary>The protobuf method name, as in the .proto file.</summary>
    public string MethodName { get; } = methodName;
}
