namespace Salsa.Gateway.Tests;

/// <summary>Workflows the tests run inline: small and quick, over real services.</summary>
internal static class TestWorkflows
{
    /// <summary>Import the 1,000-block-group fixture, query it, k-means (K = 5) keeping the assignments.</summary>
    public const string Small = """
        name: small
        steps:
          import:
            service: census
            operation: import
            parameters: { source: indiana-1000 }
          query:
            service: census
            operation: query
            inputs: { dataset: import.dataset }
          cluster:
            service: kmeans
            operation: cluster
            inputs: { dataset: query.dataset }
            parameters: { clusters: 5, seed: 7 }
            artifacts: [assignments]
        """;
}
