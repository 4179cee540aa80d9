using System.Text.Json.Nodes;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Cli;

internal static class RunHosts
{
    public static WorkflowDefinition Load(WorkflowLibrary library, string workflow, IReadOnlyDictionary<string, JsonNode?> parameters) =>
        File.Exists(workflow) || workflow.EndsWith(".yaml", StringComparison.Ordinal) || workflow.EndsWith(".yml", StringComparison.Ordinal)
            ? library.LoadFile(workflow, parameters)
            : library.Load(workflow, parameters);

    public static bool IsFinished(RunState state) => state is not (RunState.Queued or RunState.Running);
}
