using Grpc.Core;
using KMeansGrpc = Salsa.Contracts.KMeans.KMeans;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.kmeans.v1.KMeans</c>.</summary>
public sealed class KMeansClient(CallInvoker invoker) : KMeansGrpc.KMeansClient(invoker)
{
    public KMeansClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
