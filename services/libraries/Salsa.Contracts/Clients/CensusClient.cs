using Grpc.Core;
using CensusGrpc = Salsa.Contracts.Census.Census;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.census.v1.Census</c>.</summary>
public sealed class CensusClient(CallInvoker invoker) : CensusGrpc.CensusClient(invoker)
{
    public CensusClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
