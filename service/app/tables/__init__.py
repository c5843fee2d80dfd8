"""Who plays where: joining, leaving, starting and replaying games; bots taking seats over and handing them back."""
