using Salsa.Grpc.Reflection.V1Alpha;

namespace Salsa.Grpc;

/// <summary>
/// grpc.reflection.v1alpha.ServerReflection over the mapped services: one response per request,
/// in order, on a single bidirectional stream. File answers carry the file and all of its
/// transitive dependencies every time (as the C++ server does), so a client needs no state.
/// </summary>
internal sealed class ServerReflectionService(GrpcServiceRegistry registry)
{
    public async Task ServerReflectionInfo(
        IAsyncStreamReader<ServerReflectionRequest> requests,
        IServerStreamWriter<ServerReflectionResponse> responses,
        ServerCallContext context)
    {
        while (await requests.MoveNext(context.CancellationToken).ConfigureAwait(false))
        {
            await responses.WriteAsync(Answer(requests.Current), context.CancellationToken).ConfigureAwait(false);
        }
    }

    internal ServerReflectionResponse Answer(ServerReflectionRequest request)
    {
        var index = registry.Index;
        var response = new ServerReflectionResponse { ValidHost = request.Host, OriginalRequest = request };
        switch (request.MessageRequestCase)
        {
            case ServerReflectionRequest.MessageRequestOneofCase.ListServices:
                var list = new ListServiceResponse();
                foreach (var name in index.ServiceNames)
                {
                    list.Service.Add(new ServiceResponse { Name = name });
                }

                response.ListServicesResponse = list;
                break;
            case ServerReflectionRequest.MessageRequestOneofCase.FileByFilename:
                SetFile(response, index.FindFile(request.FileByFilename), $"File '{request.FileByFilename}' not found.");
                break;
            case ServerReflectionRequest.MessageRequestOneofCase.FileContainingSymbol:
                SetFile(response, index.FindFileContainingSymbol(request.FileContainingSymbol), $"Symbol '{request.FileContainingSymbol}' not found.");
                break;
            case ServerReflectionRequest.MessageRequestOneofCase.FileContainingExtension:
                var extension = request.FileContainingExtension;
                SetFile(
                    response,
                    index.FindFileContainingExtension(extension.ContainingType, extension.ExtensionNumber),
                    $"Extension {extension.ExtensionNumber} of '{extension.ContainingType}' not found.");
                break;
            case ServerReflectionRequest.MessageRequestOneofCase.AllExtensionNumbersOfType:
                if (index.FindExtensionNumbers(request.AllExtensionNumbersOfType) is { } numbers)
                {
                    var numbersResponse = new ExtensionNumberResponse { BaseTypeName = request.AllExtensionNumbersOfType };
                    numbersResponse.ExtensionNumber.Add(numbers);
                    response.AllExtensionNumbersResponse = numbersResponse;
                }
                else
                {
                    SetError(response, StatusCode.NotFound, $"Type '{request.AllExtensionNumbersOfType}' not found.");
                }

                break;
            default:
                SetError(response, StatusCode.InvalidArgument, "The request names no reflection query.");
                break;
        }

        return response;
    }

    private static void SetFile(ServerReflectionResponse response, Google.Protobuf.Reflection.FileDescriptor? file, string notFound)
    {
        if (file is null)
        {
            SetError(response, StatusCode.NotFound, notFound);
            return;
        }

        var files = new FileDescriptorResponse();
        files.FileDescriptorProto.Add(DescriptorIndex.WithDependencies(file));
        response.FileDescriptorResponse = files;
    }

    private static void SetError(ServerReflectionResponse response, StatusCode code, string message) =>
        response.ErrorResponse = new ErrorResponse { ErrorCode = (int)code, ErrorMessage = message };
}
