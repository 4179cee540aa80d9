using Grpc.Core;
using FingerprintsGrpc = Salsa.Contracts.Fingerprints.Fingerprints;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.fingerprints.v1.Fingerprints</c>.</summary>
public sealed class FingerprintsClient(CallInvoker invoker) : FingerprintsGrpc.FingerprintsClient(invoker)
{
    public FingerprintsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
