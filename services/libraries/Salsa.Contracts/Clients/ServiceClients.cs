using Grpc.Core;
using AnnealingGrpc = Salsa.Contracts.Annealing.Annealing;
using CensusGrpc = Salsa.Contracts.Census.Census;
using ChemGrpc = Salsa.Contracts.Chem.Chem;
using DatasetsGrpc = Salsa.Contracts.Datasets.Datasets;
using FingerprintsGrpc = Salsa.Contracts.Fingerprints.Fingerprints;
using GatewayGrpc = Salsa.Contracts.Gateway.Gateway;
using JobsGrpc = Salsa.Contracts.Common.Jobs;
using KMeansGrpc = Salsa.Contracts.KMeans.KMeans;
using MdsGrpc = Salsa.Contracts.Mds.Mds;
using RenderGrpc = Salsa.Contracts.Render.Render;

namespace Salsa.Contracts.Clients;

// The clients grpc-dotnet generates from proto/ (Grpc.Tools, GrpcServices="Both"), named here once so
// callers write `new CensusClient(channel)` rather than `new Census.CensusClient(channel)`, a name
// that clashes with the services' own namespaces. Every service also serves Datasets, and those that run jobs serve Jobs.

/// <summary><c>salsa.common.v1.Jobs</c>: watch, cancel and download the outputs of any service's jobs.</summary>
public sealed class JobsClient(CallInvoker invoker) : JobsGrpc.JobsClient(invoker)
{
    public JobsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.datasets.v1.Datasets</c>: chunked upload and download, lookups.</summary>
public sealed class DatasetsClient(CallInvoker invoker) : DatasetsGrpc.DatasetsClient(invoker)
{
    public DatasetsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.annealing.v1.Annealing</c>.</summary>
public sealed class AnnealingClient(CallInvoker invoker) : AnnealingGrpc.AnnealingClient(invoker)
{
    public AnnealingClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.kmeans.v1.KMeans</c>.</summary>
public sealed class KMeansClient(CallInvoker invoker) : KMeansGrpc.KMeansClient(invoker)
{
    public KMeansClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.fingerprints.v1.Fingerprints</c>.</summary>
public sealed class FingerprintsClient(CallInvoker invoker) : FingerprintsGrpc.FingerprintsClient(invoker)
{
    public FingerprintsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.mds.v1.Mds</c>.</summary>
public sealed class MdsClient(CallInvoker invoker) : MdsGrpc.MdsClient(invoker)
{
    public MdsClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.census.v1.Census</c>.</summary>
public sealed class CensusClient(CallInvoker invoker) : CensusGrpc.CensusClient(invoker)
{
    public CensusClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.chem.v1.Chem</c>.</summary>
public sealed class ChemClient(CallInvoker invoker) : ChemGrpc.ChemClient(invoker)
{
    public ChemClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.render.v1.Render</c>.</summary>
public sealed class RenderClient(CallInvoker invoker) : RenderGrpc.RenderClient(invoker)
{
    public RenderClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}

/// <summary><c>salsa.gateway.v1.Gateway</c>: runs of workflows.</summary>
public sealed class GatewayClient(CallInvoker invoker) : GatewayGrpc.GatewayClient(invoker)
{
    public GatewayClient(ChannelBase channel) : this(channel.CreateCallInvoker()) { }
}
