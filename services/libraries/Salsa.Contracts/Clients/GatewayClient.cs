using Grpc.Core;
using GatewayGrpc = Salsa.Contracts.Gateway.Gateway;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.gateway.v1.Gateway</c>: runs of workflows.</summary>
public sealed class GatewayClient(CallInvoker invoker) : GatewayGrpc.GatewayClient(invoker)
{
    public GatewayClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
