using Grpc.Core;
using MdsGrpc = Salsa.Contracts.Mds.Mds;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.mds.v1.Mds</c>.</summary>
public sealed class MdsClient(CallInvoker invoker) : MdsGrpc.MdsClient(invoker)
{
    public MdsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
