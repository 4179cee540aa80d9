using Google.Protobuf;
using Grpc.Core;
using Salsa.Contracts.Common;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>A stored file streamed over gRPC in chunks (any service's job artifact, the gateway's run files).</summary>
public static class ArtifactChunks
{
    public const int ChunkSize = 256 * 1024;

    /// <summary>Writes the file in <see cref="ChunkSize"/> pieces; the first names its content type and size (an empty file is one empty chunk).</summary>
    public static async Task WriteAsync(Artifact artifact, IServerStreamWriter<Chunk> responses)
    {
        ArgumentNullException.ThrowIfNull(artifact);
        ArgumentNullException.ThrowIfNull(responses);
        for (var offset = 0; offset < artifact.Data.Length || offset == 0; offset += ChunkSize)
        {
            var chunk = new Chunk { Data = ByteString.CopyFrom(artifact.Data, offset, Math.Min(ChunkSize, artifact.Data.Length - offset)) };
            if (offset == 0)
            {
                chunk.ContentType = artifact.ContentType;
                chunk.TotalSize = artifact.Data.Length;
            }

            await responses.WriteAsync(chunk).ConfigureAwait(false);
            if (artifact.Data.Length == 0)
            {
                break;
            }
        }
    }
}
