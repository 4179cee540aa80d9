using Grpc.Core;
using DatasetsGrpc = Salsa.Contracts.Datasets.Datasets;

namespace Salsa.Contracts.Clients;

/// <summary><c>salsa.datasets.v1.Datasets</c>: chunked upload and download, lookups.</summary>
public sealed class DatasetsClient(CallInvoker invoker) : DatasetsGrpc.DatasetsClient(invoker)
{
    public DatasetsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
