using Google.Protobuf;
using V1 = Salsa.Grpc.Reflection.V1;
using V1Alpha = Salsa.Grpc.Reflection.V1Alpha;

namespace Salsa.Grpc;

/// <summary>
/// grpc.reflection.v1.ServerReflection: the same messages as v1alpha under a new package, so
/// each request is re-read as v1alpha, answered there, and the answer re-read as v1 (the
/// byte layouts are identical; reflection traffic is too rare for the copy to matter).
/// </summary>
internal sealed class ServerReflectionV1Service(ServerReflectionService inner)
{
    public async Task ServerReflectionInfo(
        IAsyncStreamReader<V1.ServerReflectionRequest> requests,
        IServerStreamWriter<V1.ServerReflectionResponse> responses,
        ServerCallContext context)
    {
        while (await requests.MoveNext(context.CancellationToken).ConfigureAwait(false))
        {
            var request = V1Alpha.ServerReflectionRequest.Parser.ParseFrom(requests.Current.ToByteString());
            var answer = inner.Answer(request);
            await responses.WriteAsync(V1.ServerReflectionResponse.Parser.ParseFrom(answer.ToByteString()), context.CancellationToken).ConfigureAwait(false);
        }
    }
}
