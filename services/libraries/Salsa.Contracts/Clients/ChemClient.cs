using Grpc.Core;
using ChemGrpc = Salsa.Contracts.Chem.Chem;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.chem.v1.Chem</c>.</summary>
public sealed class ChemClient(CallInvoker invoker) : ChemGrpc.ChemClient(invoker)
{
    public ChemClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
