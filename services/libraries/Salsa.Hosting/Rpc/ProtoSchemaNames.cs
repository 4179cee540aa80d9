using Microsoft.AspNetCore.OpenApi;
using Salsa.Contracts.Operations;

namespace Salsa.Hosting.Rpc;

/// <summary>The names of the OpenAPI document's schemas.</summary>
internal static class ProtoSchemaNames
{
    /// <summary>
    /// Names each schema as the framework does, except a request message <c>Start&lt;Name&gt;</c>, whose
    /// REST body is named <c>&lt;Name&gt;</c> as v1 named it before its parameters moved to the message
    /// (<c>StartKMeansRequest</c> is <c>KMeansRequest</c>): a generated client's types keep their names.
    /// </summary>
    public static OpenApiOptions SchemaNames(this OpenApiOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.CreateSchemaReferenceId = info =>
            info.Type.Name.StartsWith("Start", StringComparison.Ordinal) && ProtoSchemas.DescriptorOf(info.Type) is { } descriptor && RequestParameters.IsRequest(descriptor)
                ? info.Type.Name["Start".Length..]
                : OpenApiOptions.CreateDefaultSchemaReferenceId(info);
        return options;
    }
}
