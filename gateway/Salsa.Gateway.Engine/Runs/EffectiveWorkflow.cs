using System.Globalization;
using System.Text;
using System.Text.Json;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Runs;

/// <summary>
/// A run's workflow as it ran: the workflow's text read with the run's overrides, written out with
/// every step's parameters as the step ran with them (the workflow's values, the operation's
/// defaults and the overrides applied). It is a workflow file itself: reading it gives the same steps.
/// </summary>
public static class EffectiveWorkflow
{
    public static string Yaml(WorkflowDefinition workflow, RunView run)
    {
        ArgumentNullException.ThrowIfNull(workflow);
        ArgumentNullException.ThrowIfNull(run);
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"# {workflow.Name} as run {run.Id} ran it: each step's parameters as it ran with them\n");
        text.Append(CultureInfo.InvariantCulture, $"# (the workflow's values, the operations' defaults and the run's overrides applied).\n");
        text.Append("name: ").Append(Scalar(workflow.Name)).Append('\n');
        if (workflow.Description.Length > 0)
        {
            text.Append("description: ").Append(Scalar(workflow.Description)).Append('\n');
        }

        text.Append("\nsteps:\n");
        foreach (var step in workflow.Steps)
        {
            var ran = run.Steps.FirstOrDefault(s => s.Id == step.Id)?.Parameters is { Count: > 0 } effective ? effective : step.Parameters;
            text.Append("  ").Append(step.Id).Append(":\n");
            text.Append("    service: ").Append(step.Service).Append('\n');
            text.Append("    operation: ").Append(step.Operation).Append('\n');
            if (step.Inputs.Count > 0)
            {
                text.Append("    inputs:\n");
                foreach (var (name, from) in step.Inputs)
                {
                    text.Append("      ").Append(name).Append(": ").Append(from).Append('\n');
                }
            }

            var implicitDependencies = step.DependsOn.Except(step.Inputs.Values.Select(i => i.Step)).ToList();
            if (implicitDependencies.Count > 0)
            {
                text.Append("    after: [").Append(string.Join(", ", implicitDependencies)).Append("]\n");
            }

            if (ran.Count > 0)
            {
                text.Append("    parameters:\n");
                foreach (var (name, value) in ran.OrderBy(p => p.Key, StringComparer.Ordinal))
                {
                    // JSON is YAML's flow style: strings quoted, numbers, booleans, lists and maps as they are.
                    text.Append("      ").Append(name).Append(": ").Append(value?.ToJsonString() ?? "null").Append('\n');
                }
            }

            if (step.Retry.Attempts > 1)
            {
                text.Append(CultureInfo.InvariantCulture, $"    retry: {{ attempts: {step.Retry.Attempts}, backoff: {Duration(step.Retry.Backoff)} }}\n");
            }

            if (step.Timeout is { } timeout)
            {
                text.Append("    timeout: ").Append(Duration(timeout)).Append('\n');
            }

            if (step.Artifacts.Count > 0)
            {
                text.Append("    artifacts: [").Append(string.Join(", ", step.Artifacts)).Append("]\n");
            }

            text.Append('\n');
        }

        return text.ToString().TrimEnd('\n') + "\n";
    }

    private static string Scalar(string value) => JsonSerializer.Serialize(value);

    private static string Duration(TimeSpan span) => span.TotalMilliseconds % 1000 != 0
        ? string.Create(CultureInfo.InvariantCulture, $"{span.TotalMilliseconds:0}ms")
        : string.Create(CultureInfo.InvariantCulture, $"{span.TotalSeconds:0}s");
}
