using Salsa.Testing;
using YamlDotNet.RepresentationModel;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The container deployment's files as Docker Compose reads them: docker-compose.yml alone and with
/// the several-hosts override validate, and every deployable of the repository is a service built
/// from its own project by deploy/Dockerfile.
/// </summary>
public sealed class DeploymentTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ComposeFile_AndTheClusterOverride_Validate()
    {
        var (alone, _, aloneError) = await ComposeAsync(["-f", "docker-compose.yml", "config", "-q"]);
        var (cluster, _, clusterError) = await ComposeAsync(["-f", "docker-compose.yml", "-f", "deploy/compose.cluster.yml", "config", "-q"]);
        var (missing, _, missingError) = await ComposeAsync(["-f", "docker-compose.yml", "-f", "deploy/compose.cluster.yml", "config", "-q"], hostAddress: null);
        var (keyless, _, keylessError) = await ComposeAsync(["-f", "docker-compose.yml", "config", "-q"], serviceKey: null);
        var (uncertified, _, uncertifiedError) = await ComposeAsync(["-f", "docker-compose.yml", "config", "-q"], clusterCertificate: null);

        Assert.True(alone == 0, aloneError);
        Assert.True(cluster == 0, clusterError);
        Assert.NotEqual(0, missing);
        Assert.Contains("SALSA_HOST_ADDRESS", missingError, StringComparison.Ordinal);
        Assert.NotEqual(0, keyless); // the services' shared secret is never a default anyone could know
        Assert.Contains("SALSA_SERVICE_KEY", keylessError, StringComparison.Ordinal);
        Assert.NotEqual(0, uncertified); // nor do the silos talk without their certificate
        Assert.Contains("SALSA_CLUSTER_CERTIFICATE", uncertifiedError, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ComposeFile_BuildsEveryDeployableFromItsProject()
    {
        var (exitCode, output, error) = await ComposeAsync(["-f", "docker-compose.yml", "config"]);
        Assert.True(exitCode == 0, error);
        var yaml = new YamlStream();
        yaml.Load(new StringReader(output));
        var services = (YamlMappingNode)((YamlMappingNode)yaml.Documents[0].RootNode)["services"];
        var built = services.Children
            .Where(s => ((YamlMappingNode)s.Value).Children.ContainsKey("build"))
            .ToDictionary(s => ((YamlScalarNode)s.Key).Value!, s => ((YamlScalarNode)((YamlMappingNode)((YamlMappingNode)((YamlMappingNode)s.Value)["build"])["args"])["PROJECT"]).Value!);

        var deployables = Directory.GetDirectories(Path.Combine(Repository.Root, "services"), "Salsa.*")
            .Append(Path.Combine(Repository.Root, "gateway", "Salsa.Gateway"))
            .Where(d => File.Exists(Path.Combine(d, "Program.cs")))
            .Select(d => Path.GetRelativePath(Repository.Root, d).Replace('\\', '/'))
            .Order(StringComparer.Ordinal)
            .ToList();
        Assert.Equal(deployables, built.Values.Order(StringComparer.Ordinal));
        Assert.All(built, b => Assert.True(File.Exists(Path.Combine(Repository.Root, b.Value, $"{Path.GetFileName(b.Value)}.csproj")), $"{b.Key}: {b.Value}"));
        Assert.All(built.Keys, name => Assert.Contains("healthcheck", ((YamlMappingNode)services[name]).Children.Keys.Select(k => ((YamlScalarNode)k).Value)));
    }

    [Fact]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public async Task ClusterCertificate_ItsKeyIsItsOwnersAlone()
    {
        using var directory = new TemporaryDirectory();
        var file = directory.Combine("secrets", "cluster.pem");

        var (exitCode, output, error) = await ExternalProgram.RunAsync(Path.Combine(Repository.Root, "deploy", "cluster-certificate"), Repository.Root, [file], Token);

        Assert.True(exitCode == 0, output + error);
        Assert.Contains("PRIVATE KEY", await File.ReadAllTextAsync(file, Token), StringComparison.Ordinal);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(Path.GetDirectoryName(file)!));
    }

    private static Task<(int ExitCode, string Output, string Error)> ComposeAsync(
        string[] arguments,
        string? hostAddress = "10.0.0.11",
        string? serviceKey = "a-service-key-of-the-tests-32-chars-or-more",
        string? clusterCertificate = "deploy/secrets/cluster.pem") =>
        ExternalProgram.RunAsync("docker-compose", Repository.Root, arguments, Token, new Dictionary<string, string?>
        {
            ["SALSA_HOST_ADDRESS"] = hostAddress,
            ["SALSA_SERVICE_KEY"] = serviceKey,
            ["SALSA_CLUSTER_CERTIFICATE"] = clusterCertificate,
        });
}
