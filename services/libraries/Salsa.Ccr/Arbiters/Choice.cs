namespace Salsa.Ccr;

/// <summary>
/// Runs exactly one of several one-shot branches: the first whose messages arrive (CCR's Choice).
/// The other branches are deactivated and consume nothing.
/// </summary>
public sealed class Choice : ArbiterTask, IArbiterParent
{
    private readonly ArbiterTask[] _branches;

    internal Choice(ArbiterTask[] branches)
        : base(persist: false)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(branches.Length, 1);
        if (Array.Exists(branches, b => b.Persist))
        {
            throw new ArgumentException("Choice branches must be one-shot receivers.", nameof(branches));
        }

        _branches = branches;
    }

    private protected override void OnActivate()
    {
        foreach (var branch in _branches)
        {
            branch.ActivateAsChild(Queue!, this);
        }
    }

    private protected override void OnFinished(bool cancelled)
    {
        foreach (var branch in _branches)
        {
            branch.Deactivate(cancelled);
        }
    }

    bool IArbiterParent.TryCommitChild(ArbiterTask child) => TryCommit();

    ITask IArbiterParent.WrapChildTask(ArbiterTask child, ITask task) => Wrap(task);

    bool IArbiterParent.TryRouteChildFault(Exception exception) => TryRouteFault(exception);
}
