using Grpc.Core;
using RenderGrpc = Salsa.Contracts.Render.Render;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.render.v1.Render</c>.</summary>
public sealed class RenderClient(CallInvoker invoker) : RenderGrpc.RenderClient(invoker)
{
    public RenderClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
