using Grpc.Core;
using AnnealingGrpc = Salsa.Contracts.Annealing.Annealing;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.annealing.v1.Annealing</c>.</summary>
public sealed class AnnealingClient(CallInvoker invoker) : AnnealingGrpc.AnnealingClient(invoker)
{
    public AnnealingClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
