net = torch.nn.Linear(30000,1).cuda()
data = torch.ones(100, 30000).cuda()
for rep in range(1000):
  for batchIndices in range(0,100,100):
    batch = torch.autograd.Variable(data[batchIndices:batchIndices+10], requires_grad=True)
    net.forward(batch).norm(2).backward(create_graph=True)
    batch.grad.norm(2).backward()
