using System.Reflection;
using System.Text.Json;
using Salsa.Grpc.Tests.Support;
using Salsa.Testing;

namespace Salsa.Grpc.Tests;

/// <summary>
/// An outside implementation of gRPC (Node.js grpc-js) calls our server. Node is a CI
/// prerequisite, so its absence fails the test rather than skipping it.
/// </summary>
public sealed class NodeInteropTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static string NodeDirectory =>
        typeof(NodeInteropTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "NodeClientDirectory").Value!;

    [Fact]
    public async Task GrpcJsClient_AllCallKinds_InteroperateWithOurServer()
    {
        await ExternalProgram.EnsureNpmPackagesAsync(NodeDirectory, "@grpc/grpc-js", Token);
        var key = $"node-deadline-{Guid.NewGuid()}";

        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", NodeDirectory, ["echo-client.mjs", fixture.Server.Address, key], Token);

        Assert.True(exitCode == 0, $"node echo-client.mjs exited with {exitCode}: {error}");
        using var json = JsonDocument.Parse(output);
        var results = json.RootElement;

        var unary = results.GetProperty("unary");
        Assert.Equal("hello from node", unary.GetProperty("text").GetString());
        Assert.Equal("payload", unary.GetProperty("payload").GetString());
        Assert.Equal("from grpc-js", unary.GetProperty("headers").GetProperty("node").GetString());
        Assert.Equal([1, 2, 3, 255], unary.GetProperty("headers").GetProperty("nodeBin").EnumerateArray().Select(e => e.GetInt32()));
        Assert.Equal("from grpc-js", unary.GetProperty("trailers").GetProperty("echo-node").GetString());

        Assert.Equal(1000, results.GetProperty("serverStream").GetProperty("count").GetInt32());
        Assert.True(results.GetProperty("serverStream").GetProperty("inOrder").GetBoolean());

        Assert.Equal("abcde", results.GetProperty("clientStream").GetProperty("text").GetString());
        Assert.Equal(5, results.GetProperty("clientStream").GetProperty("index").GetInt32());

        Assert.Equal(["x", "y", "z"], results.GetProperty("duplex").GetProperty("replies").EnumerateArray().Select(e => e.GetString()));

        Assert.Equal((int)StatusCode.DeadlineExceeded, results.GetProperty("deadline").GetProperty("code").GetInt32());
        await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token);

        var fail = results.GetProperty("fail");
        Assert.Equal((int)StatusCode.NotFound, fail.GetProperty("code").GetInt32());
        Assert.Equal("failed on purpose", fail.GetProperty("details").GetString());
        Assert.Equal("on-purpose", fail.GetProperty("trailers").GetProperty("fail-reason").GetString());

        Assert.Equal((int)StatusCode.Unimplemented, results.GetProperty("unimplemented").GetProperty("code").GetInt32());
    }
}
