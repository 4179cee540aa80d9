using System.Reflection;
using System.Text;
using Google.Protobuf.Reflection;

namespace Salsa.Grpc;

/// <summary>
/// Binds a plain class to a protobuf service at startup: finds each method by name (exact, or
/// with an Async suffix), checks its signature against the descriptor, and compiles an
/// open-instance delegate into a typed call handler. All reflection happens here, once; a call
/// only invokes the delegate. Every problem of a class is reported together.
/// </summary>
internal static class ServiceBinder
{
    public static List<ServerCallHandler> Bind<TService>(ServiceDescriptor service, GrpcServerRuntime runtime, ServiceActivator<TService> activator)
        where TService : class
    {
        var unimplemented = typeof(TService).GetCustomAttributes<UnimplementedRpcAttribute>(inherit: true)
            .Select(a => a.MethodName)
            .ToHashSet(StringComparer.Ordinal);
        var problems = new List<string>();
        foreach (var name in unimplemented)
        {
            if (service.FindMethodByName(name) is null)
            {
                problems.Add($"[UnimplementedRpc(\"{name}\")] names no method of the service.");
            }
        }

        var handlers = new List<ServerCallHandler>();
        foreach (var descriptor in service.Methods)
        {
            var candidates = FindCandidates(typeof(TService), descriptor.Name);
            if (unimplemented.Contains(descriptor.Name))
            {
                if (candidates.Count > 0)
                {
                    problems.Add($"'{descriptor.Name}' is marked [UnimplementedRpc] but {typeof(TService).Name} has a method named {candidates[0].Name}.");
                }

                continue;
            }

            var expected = ExpectedSignature(descriptor);
            if (descriptor.InputType.ClrType is null || descriptor.OutputType.ClrType is null)
            {
                problems.Add($"'{descriptor.Name}': its messages have no generated CLR types (build the descriptor from protoc's C# output).");
                continue;
            }

            var match = candidates.FirstOrDefault(m => Matches(m, descriptor));
            if (match is null)
            {
                problems.Add(candidates.Count == 0
                    ? $"'{descriptor.Name}': no public method named {descriptor.Name} or {descriptor.Name}Async; expected `{expected}`. Mark a method left out on purpose with [UnimplementedRpc(\"{descriptor.Name}\")]."
                    : $"'{descriptor.Name}': `{Describe(candidates[0])}` does not have the expected signature `{expected}`.");
                continue;
            }

            handlers.Add(CreateHandler<TService>(descriptor, match, runtime, activator));
        }

        if (problems.Count > 0)
        {
            var message = new StringBuilder($"Salsa.Grpc cannot bind {typeof(TService).FullName} to gRPC service '{service.FullName}':");
            foreach (var problem in problems)
            {
                message.AppendLine().Append(" - ").Append(problem);
            }

            throw new InvalidOperationException(message.ToString());
        }

        return handlers;
    }

    private static List<MethodInfo> FindCandidates(Type type, string name) =>
        [.. type.GetMethods(BindingFlags.Public | BindingFlags.Instance)
            .Where(m => m.Name == name || m.Name == name + "Async")
            .OrderBy(m => m.Name.Length)];

    private static bool Matches(MethodInfo method, MethodDescriptor descriptor)
    {
        var request = descriptor.InputType.ClrType;
        var response = descriptor.OutputType.ClrType;
        var parameters = method.GetParameters().Select(p => p.ParameterType).ToArray();
        return MethodTypes.Of(descriptor) switch
        {
            MethodType.Unary => parameters.SequenceEqual([request, typeof(ServerCallContext)])
                && (method.ReturnType == typeof(Task<>).MakeGenericType(response) || method.ReturnType == typeof(ValueTask<>).MakeGenericType(response)),
            MethodType.ServerStreaming => parameters.SequenceEqual([request, typeof(IServerStreamWriter<>).MakeGenericType(response), typeof(ServerCallContext)])
                && method.ReturnType == typeof(Task),
            MethodType.ClientStreaming => parameters.SequenceEqual([typeof(IAsyncStreamReader<>).MakeGenericType(request), typeof(ServerCallContext)])
                && method.ReturnType == typeof(Task<>).MakeGenericType(response),
            _ => parameters.SequenceEqual([typeof(IAsyncStreamReader<>).MakeGenericType(request), typeof(IServerStreamWriter<>).MakeGenericType(response), typeof(ServerCallContext)])
                && method.ReturnType == typeof(Task),
        };
    }

    private static string ExpectedSignature(MethodDescriptor descriptor)
    {
        var request = descriptor.InputType.ClrType?.Name ?? descriptor.InputType.Name;
        var response = descriptor.OutputType.ClrType?.Name ?? descriptor.OutputType.Name;
        var name = descriptor.Name;
        return MethodTypes.Of(descriptor) switch
        {
            MethodType.Unary => $"Task<{response}> {name}({request} request, ServerCallContext context)",
            MethodType.ServerStreaming => $"Task {name}({request} request, IServerStreamWriter<{response}> responses, ServerCallContext context)",
            MethodType.ClientStreaming => $"Task<{response}> {name}(IAsyncStreamReader<{request}> requests, ServerCallContext context)",
            _ => $"Task {name}(IAsyncStreamReader<{request}> requests, IServerStreamWriter<{response}> responses, ServerCallContext context)",
        };
    }

    private static string Describe(MethodInfo method) =>
        $"{FriendlyName(method.ReturnType)} {method.Name}({string.Join(", ", method.GetParameters().Select(p => $"{FriendlyName(p.ParameterType)} {p.Name}"))})";

    private static string FriendlyName(Type type) =>
        type.IsGenericType ? $"{type.Name[..type.Name.IndexOf('`', StringComparison.Ordinal)]}<{string.Join(", ", type.GetGenericArguments().Select(FriendlyName))}>" : type.Name;

    private static ServerCallHandler CreateHandler<TService>(MethodDescriptor descriptor, MethodInfo implementation, GrpcServerRuntime runtime, ServiceActivator<TService> activator)
        where TService : class
    {
        var type = MethodTypes.Of(descriptor);
        var open = type switch
        {
            MethodType.Unary => typeof(UnaryServerCallHandler<,,>),
            MethodType.ServerStreaming => typeof(ServerStreamingServerCallHandler<,,>),
            MethodType.ClientStreaming => typeof(ClientStreamingServerCallHandler<,,>),
            _ => typeof(DuplexStreamingServerCallHandler<,,>),
        };
        var closed = open.MakeGenericType(typeof(TService), descriptor.InputType.ClrType, descriptor.OutputType.ClrType);
        var method = new ServerMethod(descriptor.Service.FullName, descriptor.Name, type);
        return (ServerCallHandler)Activator.CreateInstance(closed, method, runtime, activator, descriptor.InputType.Parser, implementation)!;
    }
}
