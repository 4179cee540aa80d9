using System.Reflection;
using Google.Protobuf;
using Grpc.AspNetCore.Server.Model;
using Grpc.Core;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// Binds a gRPC service's methods as grpc-dotnet's own provider does — through the generated
/// <c>BindService</c> named by the base class's <see cref="BindServiceMethodAttribute"/> — with one
/// difference: a request that is not a valid protobuf message is refused as INVALID_ARGUMENT naming the
/// message, where grpc-dotnet, which parses the request before any interceptor runs, would answer
/// UNKNOWN ("Exception was thrown by handler").
/// </summary>
/// <remarks>Registered in place of grpc-dotnet's <c>IServiceMethodProvider&lt;&gt;</c> by <see cref="ServiceDefaults"/>.</remarks>
internal sealed class StrictRequestMethodProvider<TService> : IServiceMethodProvider<TService>
    where TService : class
{
    public void OnServiceMethodDiscovery(ServiceMethodProviderContext<TService> context)
    {
        for (var type = typeof(TService); type is not null; type = type.BaseType)
        {
            if (type.GetCustomAttribute<BindServiceMethodAttribute>(inherit: false) is { } bind)
            {
                var method = bind.BindType.GetMethod(bind.BindMethodName, BindingFlags.Public | BindingFlags.Static, [typeof(ServiceBinderBase), type])
                    ?? throw new InvalidOperationException($"{bind.BindType} has no {bind.BindMethodName}(ServiceBinderBase, {type.Name}).");
                method.Invoke(null, [new Binder(context), null]);
                return;
            }
        }
    }

    private sealed class Binder(ServiceMethodProviderContext<TService> context) : ServiceBinderBase
    {
        public override void AddMethod<TRequest, TResponse>(Method<TRequest, TResponse> method, UnaryServerMethod<TRequest, TResponse>? handler) =>
            context.AddUnaryMethod(Strict(method), Metadata(method, out var found, typeof(TRequest), typeof(ServerCallContext)),
                Invoker<Grpc.AspNetCore.Server.Model.UnaryServerMethod<TService, TRequest, TResponse>>(found));

        public override void AddMethod<TRequest, TResponse>(Method<TRequest, TResponse> method, ServerStreamingServerMethod<TRequest, TResponse>? handler) =>
            context.AddServerStreamingMethod(Strict(method), Metadata(method, out var found, typeof(TRequest), typeof(IServerStreamWriter<TResponse>), typeof(ServerCallContext)),
                Invoker<Grpc.AspNetCore.Server.Model.ServerStreamingServerMethod<TService, TRequest, TResponse>>(found));

        public override void AddMethod<TRequest, TResponse>(Method<TRequest, TResponse> method, ClientStreamingServerMethod<TRequest, TResponse>? handler) =>
            context.AddClientStreamingMethod(Strict(method), Metadata(method, out var found, typeof(IAsyncStreamReader<TRequest>), typeof(ServerCallContext)),
                Invoker<Grpc.AspNetCore.Server.Model.ClientStreamingServerMethod<TService, TRequest, TResponse>>(found));

        public override void AddMethod<TRequest, TResponse>(Method<TRequest, TResponse> method, DuplexStreamingServerMethod<TRequest, TResponse>? handler) =>
            context.AddDuplexStreamingMethod(Strict(method), Metadata(method, out var found, typeof(IAsyncStreamReader<TRequest>), typeof(IServerStreamWriter<TResponse>), typeof(ServerCallContext)),
                Invoker<Grpc.AspNetCore.Server.Model.DuplexStreamingServerMethod<TService, TRequest, TResponse>>(found));

        /// <summary>The service's method for an RPC, and its attributes and its class's as endpoint metadata (as grpc-dotnet gives them).</summary>
        private static List<object> Metadata(IMethod method, out MethodInfo found, params Type[] parameters)
        {
            found = typeof(TService).GetMethod(method.Name, BindingFlags.Public | BindingFlags.Instance, parameters)
                ?? throw new InvalidOperationException($"{typeof(TService).Name} has no method {method.Name} for {method.FullName}.");
            return [.. typeof(TService).GetCustomAttributes(inherit: true), .. found.GetCustomAttributes(inherit: true)];
        }

        private static TDelegate Invoker<TDelegate>(MethodInfo method)
            where TDelegate : Delegate => method.CreateDelegate<TDelegate>();

        private static Method<TRequest, TResponse> Strict<TRequest, TResponse>(Method<TRequest, TResponse> method)
        {
            var requests = method.RequestMarshaller;
            return new Method<TRequest, TResponse>(method.Type, method.ServiceName, method.Name,
                new Marshaller<TRequest>(requests.ContextualSerializer, context => Parse(requests, context)), method.ResponseMarshaller);
        }

        private static T Parse<T>(Marshaller<T> marshaller, DeserializationContext context)
        {
            try
            {
                return marshaller.ContextualDeserializer(context);
            }
            catch (InvalidProtocolBufferException exception)
            {
                throw new RpcException(new Status(StatusCode.InvalidArgument, $"The request is not a valid {typeof(T).Name} message: {exception.Message}"));
            }
        }
    }
}
