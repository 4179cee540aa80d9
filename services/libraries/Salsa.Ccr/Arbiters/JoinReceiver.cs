namespace Salsa.Ccr;

// Design: a join needs one item from each of several ports, taken atomically. Each port holds a
// leg that only reports "evaluate me"; the evaluation runs after that port's drain released its
// lock, takes every port's consumer lock in ascending Port.Id order (the global order that keeps
// concurrent joins and drains deadlock-free), and commits only if every port has an item. Nothing
// is taken unless everything is, so a losing join never strands messages.
/// <summary>Base of joins over several ports.</summary>
public abstract class JoinReceiver : ArbiterTask, IJoinEvaluator
{
    private readonly (long Id, object Gate)[] _locks;

    private protected JoinReceiver(bool persist, IEnumerable<(long Id, object Gate)> locks)
        : base(persist)
    {
        _locks = [.. locks.DistinctBy(l => l.Id).OrderBy(l => l.Id)];
    }

    void IJoinEvaluator.Evaluate()
    {
        var batch = new TaskBatch();
        while (IsActive)
        {
            var fired = false;
            var taken = 0;
            try
            {
                for (; taken < _locks.Length; taken++)
                {
                    Monitor.Enter(_locks[taken].Gate);
                }

                if (AllPortsHaveItems() && TryCommit())
                {
                    batch.Add(Queue!, Wrap(TakeAndBuildTask()));
                    fired = true;
                }
            }
            finally
            {
                while (taken > 0)
                {
                    Monitor.Exit(_locks[--taken].Gate);
                }
            }

            batch.Flush();
            if (!fired || !Persist)
            {
                return;
            }
        }
    }

    /// <summary>Called with every port's lock held.</summary>
    private protected abstract bool AllPortsHaveItems();

    /// <summary>Called with every port's lock held, after a successful commit.</summary>
    private protected abstract ITask TakeAndBuildTask();

    private protected sealed class Leg<T>(JoinReceiver owner) : PortReceiver<T>
    {
        public override bool IsLive => owner.IsActive;

        public override IJoinEvaluator Join => owner;

        public override OfferOutcome Offer(Port<T> port, ref TaskBatch batch) =>
            owner.IsActive ? OfferOutcome.EvaluateJoin : OfferOutcome.Declined;
    }
}
