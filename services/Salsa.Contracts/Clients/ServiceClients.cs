using Salsa.Contracts.Annealing;
using Salsa.Contracts.Census;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Common;
using Salsa.Contracts.Datasets;
using Salsa.Contracts.Fingerprints;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Render;
using Salsa.Grpc;

namespace Salsa.Contracts.Clients;

// Typed clients, one line per RPC, over Salsa.Grpc channels. Every service also serves Jobs and Datasets.

/// <summary><c>salsa.common.v1.Jobs</c>: watch, cancel and download the outputs of any service's jobs.</summary>
public sealed class JobsClient(GrpcChannel channel) : GrpcClientBase(channel, JobsReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> GetAsync(JobRef request, CallOptions options = default) => Unary<JobRef, JobInfo>("Get", request, options);

    public AsyncServerStreamingCall<JobEvent> Watch(JobRef request, CallOptions options = default) => ServerStreaming<JobRef, JobEvent>("Watch", request, options);

    public AsyncUnaryCall<JobInfo> CancelAsync(JobRef request, CallOptions options = default) => Unary<JobRef, JobInfo>("Cancel", request, options);

    public AsyncUnaryCall<ListJobsResponse> ListAsync(ListJobsRequest request, CallOptions options = default) => Unary<ListJobsRequest, ListJobsResponse>("List", request, options);

    public AsyncServerStreamingCall<Chunk> DownloadArtifact(DownloadArtifactRequest request, CallOptions options = default) => ServerStreaming<DownloadArtifactRequest, Chunk>("DownloadArtifact", request, options);
}

/// <summary><c>salsa.datasets.v1.Datasets</c>: chunked upload and download, lookups.</summary>
public sealed class DatasetsClient(GrpcChannel channel) : GrpcClientBase(channel, DatasetsReflection.Descriptor.Services[0])
{
    public AsyncClientStreamingCall<UploadRequest, DatasetInfo> Upload(CallOptions options = default) => ClientStreaming<UploadRequest, DatasetInfo>("Upload", options);

    public AsyncUnaryCall<DatasetInfo> GetAsync(DatasetRef request, CallOptions options = default) => Unary<DatasetRef, DatasetInfo>("Get", request, options);

    public AsyncUnaryCall<ListDatasetsResponse> ListAsync(ListDatasetsRequest request, CallOptions options = default) => Unary<ListDatasetsRequest, ListDatasetsResponse>("List", request, options);

    public AsyncUnaryCall<DatasetInfo> DeleteAsync(DatasetRef request, CallOptions options = default) => Unary<DatasetRef, DatasetInfo>("Delete", request, options);

    public AsyncServerStreamingCall<PointChunk> Download(DatasetRef request, CallOptions options = default) => ServerStreaming<DatasetRef, PointChunk>("Download", request, options);
}

public sealed class AnnealingClient(GrpcChannel channel) : GrpcClientBase(channel, AnnealingReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> StartAsync(StartAnnealingRequest request, CallOptions options = default) => Unary<StartAnnealingRequest, JobInfo>("Start", request, options);

    public AsyncUnaryCall<AnnealingResult> GetResultAsync(JobRef request, CallOptions options = default) => Unary<JobRef, AnnealingResult>("GetResult", request, options);
}

public sealed class KMeansClient(GrpcChannel channel) : GrpcClientBase(channel, KmeansReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> StartAsync(StartKMeansRequest request, CallOptions options = default) => Unary<StartKMeansRequest, JobInfo>("Start", request, options);

    public AsyncUnaryCall<KMeansResult> GetResultAsync(JobRef request, CallOptions options = default) => Unary<JobRef, KMeansResult>("GetResult", request, options);
}

public sealed class FingerprintsClient(GrpcChannel channel) : GrpcClientBase(channel, FingerprintsReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> StartButinaAsync(StartButinaRequest request, CallOptions options = default) => Unary<StartButinaRequest, JobInfo>("StartButina", request, options);

    public AsyncUnaryCall<ButinaResult> GetButinaResultAsync(JobRef request, CallOptions options = default) => Unary<JobRef, ButinaResult>("GetButinaResult", request, options);

    public AsyncUnaryCall<JobInfo> StartAnnealingAsync(StartAnnealingRequest request, CallOptions options = default) => Unary<StartAnnealingRequest, JobInfo>("StartAnnealing", request, options);

    public AsyncUnaryCall<AnnealingResult> GetAnnealingResultAsync(JobRef request, CallOptions options = default) => Unary<JobRef, AnnealingResult>("GetAnnealingResult", request, options);

    public AsyncUnaryCall<SearchResponse> SearchAsync(SearchRequest request, CallOptions options = default) => Unary<SearchRequest, SearchResponse>("Search", request, options);
}

public sealed class MdsClient(GrpcChannel channel) : GrpcClientBase(channel, MdsReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> StartAsync(StartEmbeddingRequest request, CallOptions options = default) => Unary<StartEmbeddingRequest, JobInfo>("Start", request, options);

    public AsyncUnaryCall<EmbeddingResult> GetResultAsync(JobRef request, CallOptions options = default) => Unary<JobRef, EmbeddingResult>("GetResult", request, options);
}

public sealed class CensusClient(GrpcChannel channel) : GrpcClientBase(channel, CensusReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<DatasetInfo> ImportAsync(ImportCensusRequest request, CallOptions options = default) => Unary<ImportCensusRequest, DatasetInfo>("Import", request, options);

    public AsyncUnaryCall<DatasetInfo> QueryAsync(QueryCensusRequest request, CallOptions options = default) => Unary<QueryCensusRequest, DatasetInfo>("Query", request, options);
}

public sealed class ChemClient(GrpcChannel channel) : GrpcClientBase(channel, ChemReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<DatasetInfo> ImportAsync(ImportCompoundsRequest request, CallOptions options = default) => Unary<ImportCompoundsRequest, DatasetInfo>("Import", request, options);

    public AsyncUnaryCall<DatasetInfo> FingerprintsAsync(FingerprintRequest request, CallOptions options = default) => Unary<FingerprintRequest, DatasetInfo>("Fingerprints", request, options);

    public AsyncUnaryCall<ListFingerprintTypesResponse> ListFingerprintTypesAsync(ListFingerprintTypesRequest request, CallOptions options = default) =>
        Unary<ListFingerprintTypesRequest, ListFingerprintTypesResponse>("ListFingerprintTypes", request, options);
}

public sealed class RenderClient(GrpcChannel channel) : GrpcClientBase(channel, RenderReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<JobInfo> StartCensusMapAsync(RenderCensusMapRequest request, CallOptions options = default) => Unary<RenderCensusMapRequest, JobInfo>("StartCensusMap", request, options);

    public AsyncUnaryCall<JobInfo> StartScatterAsync(RenderScatterRequest request, CallOptions options = default) => Unary<RenderScatterRequest, JobInfo>("StartScatter", request, options);
}

/// <summary><c>salsa.gateway.v1.Gateway</c>: runs of workflows.</summary>
public sealed class GatewayClient(GrpcChannel channel) : GrpcClientBase(channel, Gateway.GatewayReflection.Descriptor.Services[0])
{
    public AsyncUnaryCall<Gateway.Run> StartRunAsync(Gateway.StartRunRequest request, CallOptions options = default) => Unary<Gateway.StartRunRequest, Gateway.Run>("StartRun", request, options);

    public AsyncUnaryCall<Gateway.Run> GetRunAsync(Gateway.RunRef request, CallOptions options = default) => Unary<Gateway.RunRef, Gateway.Run>("GetRun", request, options);

    public AsyncUnaryCall<Gateway.ListRunsResponse> ListRunsAsync(Gateway.ListRunsRequest request, CallOptions options = default) => Unary<Gateway.ListRunsRequest, Gateway.ListRunsResponse>("ListRuns", request, options);

    public AsyncServerStreamingCall<Gateway.RunEvent> WatchRun(Gateway.RunRef request, CallOptions options = default) => ServerStreaming<Gateway.RunRef, Gateway.RunEvent>("WatchRun", request, options);

    public AsyncUnaryCall<Gateway.Run> CancelRunAsync(Gateway.RunRef request, CallOptions options = default) => Unary<Gateway.RunRef, Gateway.Run>("CancelRun", request, options);

    public AsyncServerStreamingCall<Chunk> DownloadArtifact(Gateway.DownloadRunArtifactRequest request, CallOptions options = default) =>
        ServerStreaming<Gateway.DownloadRunArtifactRequest, Chunk>("DownloadArtifact", request, options);
}
